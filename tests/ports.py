"""A free port on loopback, for a server a test starts (the web process, a
stand-in S3, a relay)."""
from __future__ import annotations

import socket

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]
