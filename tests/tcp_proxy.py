"""A TCP relay for fault tests (stdlib only): a process talks to PostgreSQL
through it, and the test cuts the line, at a moment chosen by what the
client sends rather than by a timer, then puts it back.

    proxy = TcpProxy("127.0.0.1", 5432)           # listens on proxy.port
    proxy.cut_on(b'INSERT INTO "pool_poolmember"')  # cut as that query goes out
    ...
    proxy.restore()                                 # accept connections again
    proxy.cut_on(b"INSERT", nth=3, refuse=2)        # a brief outage: the 3rd INSERT
                                                    # cuts it, 2 connects are refused

While cut, every open connection is closed and new ones are closed as soon
as they are accepted, which the client sees as the server going away."""
from __future__ import annotations

import socket
import threading


class TcpProxy:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._trigger: bytes | None = None
        self._seen = 0  # messages that matched the trigger so far
        self._nth = 1
        self._refuse: int | None = None  # while cut: connects to refuse before restoring
        self.down = False
        self.cut_event = threading.Event()  # set when a cut happens
        self.refused = 0  # connections closed on arrival while cut
        self._closing = False
        threading.Thread(target=self._accept_loop, daemon=True).start()

    # --- control -----------------------------------------------------------
    def cut_on(self, pattern: bytes, *, nth: int = 1, refuse: int | None = None) -> None:
        """Cut the line when a client sends `pattern` for the `nth` time (before
        it is forwarded). With `refuse`, come back by itself after refusing that
        many new connections (an outage measured in attempts, not seconds)."""
        with self._lock:
            self._trigger, self._seen, self._nth, self._refuse = pattern, 0, nth, refuse

    def cut(self) -> None:
        with self._lock:
            self.down = True
            self._trigger = None
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            _close(sock)
        self.cut_event.set()

    def restore(self) -> None:
        with self._lock:
            self.down = False

    def close(self) -> None:
        self._closing = True
        self.cut()
        _close(self._listener)

    def _matches(self, data: bytes) -> bool:
        with self._lock:
            if self._trigger is None or self._trigger not in data:
                return False
            self._seen += 1
            return self._seen >= self._nth

    # --- relay -------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.down:
                self.refused += 1
                _close(client)
                with self._lock:
                    if self._refuse is not None:
                        self._refuse -= 1
                        if self._refuse <= 0:
                            self.down, self._refuse = False, None
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            server.settimeout(None)
            with self._lock:
                self._sockets.update((client, server))
            threading.Thread(target=self._pipe, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, False),
                             daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if from_client and self._matches(data):
                    self.cut()
                    return
                sink.sendall(data)
        except OSError:
            pass
        finally:
            _close(source)
            _close(sink)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
