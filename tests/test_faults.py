"""Faults with the real parts: a render worker killed (SIGKILL) in the middle
of a batch, its browsers killed under it (and a sketch that crashes every
browser it runs in, told apart from that), the broker's Redis restarted
while work is queued, and PostgreSQL going away in the middle of a write.

(A worker killed during training is tests/test_training_runs.py's; a browser
crash is tests/test_renderer.py's.)

Each test counts what was queued, what completed, what was lost and what
was done twice; the counts are asserted, never the time it took."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.db import connection

from pool.models import PoolMember, PoolSnapshot
from sketches import services
from sketches.models import Render
from tests.pool_data import grades_give, pool_renders_create
from tests.ports import free_port
from tests.postgresql import on_postgresql
from tests.sketch_files import read_sketch
from tests.tcp_proxy import TcpProxy
from tests.workers import (
    TEST_REDIS_URL,
    render_worker_start,
    render_worker_stop,
    wait_for,
    worker_kill,
)

ROOT = Path(__file__).resolve().parents[1]


# --- helpers ---------------------------------------------------------------

def pending_renders(count: int) -> list[int]:
    """`count` pending renders of an honest sketch (about 1-2 s each)."""
    code = read_sketch("good/lines.js")
    return [Render.objects.create(sketch=services.sketch_create(code=code), seed=i).pk
            for i in range(count)]


def statuses(ids: list[int]) -> dict[int, str]:
    return dict(Render.objects.filter(pk__in=ids).values_list("pk", "status"))


def send(task, args: list, broker_url: str) -> None:
    """Queue `task` on `broker_url` through a connection of its own (the app's
    producer pool may already hold a connection to another Redis)."""
    from paintrl_site.celery import app

    with app.connection_for_write(broker_url) as conn:
        task.apply_async(args=args, connection=conn)


# --- a render worker killed mid-batch --------------------------------------

BATCH = 8


@pytest.mark.browser
@pytest.mark.worker
class TestRenderWorkerKilled:
    def test_a_batch_cut_by_sigkill_finishes_on_a_new_worker_with_each_render_stored_once(
            self, media, transactional_db):
        """Kombu's Redis transport keeps a delivered message in its `unacked`
        hash until the ack (acks_late), and a worker puts back, when it starts
        and then every interval x throttle seconds, messages unacked for longer
        than the visibility timeout. The second worker runs with a 2 s timeout
        (PAINTRL_VISIBILITY_TIMEOUT_S) so the test need not wait 12 h."""
        from paintrl_site.celery import app
        from sketches.tasks import render_batch_task

        app.conf.update(broker_url=TEST_REDIS_URL, result_backend=TEST_REDIS_URL)
        redis.Redis.from_url(TEST_REDIS_URL).flushdb()
        ids = pending_renders(BATCH)
        first = render_worker_start(TEST_REDIS_URL, media)
        try:
            result = render_batch_task.delay(ids)
            wait_for(lambda: list(statuses(ids).values()).count("ok") >= 2, timeout=180,
                     worker=first)
            worker_kill(first)
        finally:
            render_worker_stop(first)
        at_kill = dict(Render.objects.filter(pk__in=ids).values_list("pk", "rendered"))
        done_at_kill = {pk for pk, rendered in at_kill.items() if rendered is not None}
        left = set(ids) - done_at_kill
        assert left, "the batch ended before the kill: make it longer"
        assert {statuses(ids)[pk] for pk in left} == {"pending"}  # none half-written
        unacked = redis.Redis.from_url(TEST_REDIS_URL).hlen("unacked")
        assert unacked == 1, "the killed worker's message should wait, unacknowledged"

        time.sleep(2.5)  # past the second worker's visibility timeout
        second = render_worker_start(TEST_REDIS_URL, media,
                              env={"PAINTRL_VISIBILITY_TIMEOUT_S": "2"})
        try:
            summary = result.get(timeout=240)
        finally:
            render_worker_stop(second)
        # The redelivered batch rendered only what was left, each render once.
        assert summary == {"done": len(left), "total": BATCH, "statuses": {"ok": len(left)}}
        after = Render.objects.filter(pk__in=ids)
        assert sorted(r.pk for r in after if r.status == "ok") == sorted(ids)  # none lost
        for render in after:
            if render.pk in done_at_kill:  # stored before the kill, not again after
                assert render.rendered == at_kill[render.pk]
            assert Path(render.png.path).is_file()
        assert len({r.png.name for r in after}) == BATCH
        assert redis.Redis.from_url(TEST_REDIS_URL).hlen("unacked") == 0  # acked at last
        print(f"\nworker kill: {BATCH} renders queued in 1 batch, {len(done_at_kill)} stored "
              f"before the kill, {len(left)} after it on a new worker; lost 0, twice 0")


# --- browsers killed under a render worker ---------------------------------

# About 2.5 s here: still running when its browser is killed.
LONG_RENDER = read_sketch("slow/long_compute_then_lines.js")


def browser_processes(worker: subprocess.Popen) -> list:
    """The worker's Chromium browser processes (not their renderers, GPU or zygote)."""
    import psutil

    found = []
    for proc in psutil.Process(worker.pid).children(recursive=True):
        try:
            args = proc.cmdline()
        except psutil.Error:
            continue
        if any(a.startswith("--proxy-server") for a in args) and not any(
                a.startswith("--type=") for a in args):
            found.append(proc)
    return found


@pytest.mark.browser
@pytest.mark.worker
class TestBrowsersKilledUnderTheRenderWorker:
    def test_an_honest_render_survives_its_browsers_killed_and_a_crasher_is_rejected(
            self, media, transactional_db):
        """SIGKILL of every browser of a live render worker, mid-render: the
        honest render is retried on a relaunched browser and stored `ok`
        (never `rejected`). A sketch that crashes its page in every browser
        is stored `rejected` as `crashed`, with the evidence, not `unavailable`."""
        from paintrl_site.celery import app
        from sketches.tasks import render_task

        app.conf.update(broker_url=TEST_REDIS_URL, result_backend=TEST_REDIS_URL)
        redis.Redis.from_url(TEST_REDIS_URL).flushdb()
        warm, honest, crasher = (
            Render.objects.create(sketch=services.sketch_create(code=code), seed=1).pk
            for code in (read_sketch("good/lines.js"), LONG_RENDER,
                         read_sketch("hostile/unbounded_memory.js")))
        worker = render_worker_start(TEST_REDIS_URL, media)
        try:
            assert render_task.delay(warm).get(timeout=180) == "ok"  # the pool is up
            browsers = browser_processes(worker)
            assert len(browsers) == 2, browsers
            result = render_task.delay(honest)
            time.sleep(1.0)
            assert statuses([honest]) == {honest: "pending"}, "rendered before the kill"
            for proc in browsers:
                proc.kill()
            assert result.get(timeout=180) == "ok"
            assert render_task.delay(crasher).get(timeout=180) == "rejected"
        finally:
            render_worker_stop(worker)
        assert Path(Render.objects.get(pk=honest).png.path).is_file()
        crashed = Render.objects.get(pk=crasher)
        assert "crashed" in crashed.violations
        assert "in 2 browsers" in crashed.violation_details["crashed"]


# --- the broker's Redis restarted ------------------------------------------

class RedisServer:
    """A redis-server of the test's own (the machine's is shared and keeps
    nothing on disk), in `folder`, on a free port."""

    def __init__(self, folder: Path, *, appendonly: bool):
        self.folder = folder
        self.appendonly = appendonly
        with __import__("socket").create_server(("127.0.0.1", 0)) as probe:
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        # save "": no RDB snapshots, so only the append-only file can keep anything.
        self.proc = subprocess.Popen(
            ["/usr/bin/redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.folder), "--appendonly", "yes" if self.appendonly else "no",
             "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = self.client()
        wait_for(lambda: _pings(client), timeout=30)

    def shutdown(self) -> None:
        try:
            self.client().shutdown()
        except redis.ConnectionError:
            pass  # the server closes the connection as it exits
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)


def _pings(client: redis.Redis) -> bool:
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


@pytest.fixture
def own_redis(tmp_path):
    if not os.access("/usr/bin/redis-server", os.X_OK):
        pytest.fail("these tests start their own /usr/bin/redis-server: apt-get install "
                    "redis-server")
    servers: list[RedisServer] = []

    def make(appendonly: bool) -> RedisServer:
        folder = tmp_path / f"redis-{len(servers)}"
        folder.mkdir()
        server = RedisServer(folder, appendonly=appendonly)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


RESTART_RENDERS = 8


@pytest.mark.browser
@pytest.mark.worker
class TestRedisRestarted:
    def test_queued_renders_survive_a_restart_of_redis_with_appendonly(
            self, media, transactional_db, own_redis):
        from sketches.tasks import render_task

        server = own_redis(appendonly=True)
        ids = pending_renders(RESTART_RENDERS)
        for pk in ids:
            send(render_task, [pk], server.url)
        worker = render_worker_start(server.url, media)
        try:
            wait_for(lambda: "ok" in statuses(ids).values(), timeout=180, worker=worker)
            queued = server.client().llen("render")
            assert queued > 0, "the queue emptied before the restart: queue more renders"
            server.shutdown()
            server.start()  # the same folder and port: it reads its append-only file
            wait_for(lambda: set(statuses(ids).values()) == {"ok"}, timeout=240,
                     worker=worker)
            # Messages in flight at the restart whose ack did not reach Redis
            # wait in `unacked` for the visibility timeout; redelivered, they
            # find their renders final and do nothing.
            leftover = server.client().hlen("unacked")
        finally:
            render_worker_stop(worker)
        renders = Render.objects.filter(pk__in=ids)
        assert sorted(r.pk for r in renders if r.status == "ok") == sorted(ids)
        assert len({r.png.name for r in renders}) == RESTART_RENDERS
        print(f"\nredis restart: {RESTART_RENDERS} renders queued, {queued} still in the "
              f"queue at the restart; completed {RESTART_RENDERS}, lost 0, {leftover} "
              f"unacknowledged (redelivered later as no-ops)")

    def test_without_persistence_a_restart_loses_the_queue(self, own_redis, tmp_path):
        """Why docs/operations.md asks for appendonly: the same restart, without it,
        drops every queued message (nothing runs; the queue is counted)."""
        from sketches.tasks import render_task

        server = own_redis(appendonly=False)
        for pk in range(5):
            send(render_task, [pk], server.url)
        assert server.client().llen("render") == 5
        server.shutdown()
        server.start()
        assert server.client().llen("render") == 0


# --- PostgreSQL cut during a write -----------------------------------------

FREEZE = """
from pool.services import snapshot_freeze
try:
    snapshot = snapshot_freeze(name="cut")
except Exception as exc:
    print("ERROR", type(exc).__name__, " ".join(str(exc).split()))
else:
    print("FROZEN", snapshot.pk, snapshot.members.count())
"""


def via_proxy_url(proxy: TcpProxy) -> str:
    db = connection.settings_dict
    user = db["USER"] or "postgres"
    auth = f"{user}:{db['PASSWORD']}@" if db["PASSWORD"] else f"{user}@"
    return f"postgres://{auth}127.0.0.1:{proxy.port}/{db['NAME']}"


def manage_shell(code: str, database: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, timeout=120,
        env={**os.environ, "DATABASE_URL": database, "PAINTRL_LOG_LEVEL": "ERROR"},
        capture_output=True, text=True)
    return result.stdout + result.stderr


class TestDatabaseCut:
    def test_a_snapshot_cut_off_mid_freeze_leaves_nothing_and_freezes_once_back(
            self, media, request, transactional_db):
        if not on_postgresql(request):
            return
        for render in pool_renders_create(3):
            grades_give(render, "love")
        db = connection.settings_dict
        proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
        try:
            # The snapshot row is written; the line goes as its members go out.
            proxy.cut_on(b'INSERT INTO "pool_poolmember"')
            out = manage_shell(FREEZE, via_proxy_url(proxy))
            assert proxy.cut_event.is_set(), out
            assert "ERROR OperationalError" in out, out  # a database error, named
            assert PoolSnapshot.objects.count() == 0, "a snapshot without its members"
            assert PoolMember.objects.count() == 0

            proxy.restore()
            out = manage_shell(FREEZE, via_proxy_url(proxy))
        finally:
            proxy.close()
        assert "FROZEN" in out and out.split()[-1] == "3", out
        snapshot = PoolSnapshot.objects.get(name="cut")
        assert snapshot.members.count() == 3


IMPORT_ITEMS = 6


def import_via(proxy: TcpProxy, path: Path) -> dict:
    """`manage.py import_renders PATH --json` in a process of its own whose
    database connection goes through `proxy`; returns its report."""
    import json

    result = subprocess.run(
        [sys.executable, "manage.py", "import_renders", str(path), "--json"], cwd=ROOT,
        timeout=120, capture_output=True, text=True,
        env={**os.environ, "DATABASE_URL": via_proxy_url(proxy), "REDIS_URL": TEST_REDIS_URL,
             "PAINTRL_LOG_LEVEL": "ERROR"})
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


class TestDatabaseCutDuringImport:
    def test_items_cut_off_are_stored_whole_or_not_at_all_and_a_second_import_completes(
            self, media, request, transactional_db, tmp_path):
        """The line drops as the third sketch goes in and stays down for two
        connection attempts: those items fail with a readable reason, every
        stored item has its render and both grades, and importing the same
        file again stores the rest, once each."""
        import json

        from rating.models import Grade
        from sketches.models import Sketch

        if not on_postgresql(request):
            return
        redis.Redis.from_url(TEST_REDIS_URL).flushdb()  # renders are queued there, not run
        path = tmp_path / "sketches.jsonl"
        path.write_text("".join(
            json.dumps({"prompt": f"lines {i}", "seed": i,
                        "code": f"// {i}\n{read_sketch('good/lines.js')}",
                        "grades": {"ana": "love", "ben": "okay"}}) + "\n"
            for i in range(IMPORT_ITEMS)))
        db = connection.settings_dict
        proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
        try:
            proxy.cut_on(b'INSERT INTO "sketches_sketch"', nth=3, refuse=2)
            first = import_via(proxy, path)
            assert proxy.cut_event.is_set() and proxy.refused == 2
            failed = first["counts"]["errors"]
            assert failed >= 1 and first["counts"]["imported"] + failed == IMPORT_ITEMS, first
            for item in first["errors"]:
                assert "the database was unavailable" in item["message"], item
            # No partial item: each stored sketch has its render and both grades.
            stored = Sketch.objects.all()
            assert stored.count() == IMPORT_ITEMS - failed
            for sketch in stored:
                assert sketch.renders.count() == 1
                assert Grade.objects.filter(render__sketch=sketch).count() == 2

            second = import_via(proxy, path)
        finally:
            proxy.close()
        assert second["counts"]["imported"] == failed, second
        assert second["counts"]["skipped_already_imported"] == IMPORT_ITEMS - failed
        assert Sketch.objects.count() == IMPORT_ITEMS
        assert Render.objects.count() == IMPORT_ITEMS
        assert Grade.objects.count() == 2 * IMPORT_ITEMS
        print(f"\ndatabase cut during import: {IMPORT_ITEMS} items, {failed} failed with "
              f"the reason, 0 partial; second import stored {failed}, duplicated 0")


@pytest.mark.browser
@pytest.mark.worker
class TestDatabaseCutUnderTheRenderWorker:
    def test_a_render_whose_store_is_cut_off_is_retried_and_stored_once(
            self, media, request, transactional_db):
        """The worker's line to PostgreSQL drops as it writes the render, and
        the next two connection attempts are refused: the task retries (a
        failed task would be acknowledged and its render left pending), the
        render ends ok, and the PNG written before the failed write is gone."""
        from paintrl_site.celery import app
        from sketches.tasks import render_task

        if not on_postgresql(request):
            return
        app.conf.update(broker_url=TEST_REDIS_URL, result_backend=TEST_REDIS_URL)
        redis.Redis.from_url(TEST_REDIS_URL).flushdb()
        [pk] = pending_renders(1)
        db = connection.settings_dict
        proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
        proxy.cut_on(b'UPDATE "sketches_render"', refuse=2)
        worker = render_worker_start(TEST_REDIS_URL, media,
                              env={"DATABASE_URL": via_proxy_url(proxy)})
        try:
            result = render_task.delay(pk)
            assert result.get(timeout=240) == "ok"
        finally:
            render_worker_stop(worker)
            proxy.close()
        assert proxy.cut_event.is_set() and proxy.refused == 2
        render = Render.objects.get(pk=pk)
        assert render.status == "ok" and Path(render.png.path).is_file()
        pngs = list((media / "renders").rglob("*.png"))
        assert pngs == [Path(render.png.path)], "a PNG left behind by the failed write"
        print("\ndatabase cut under the render worker: 1 render, 1 failed store, retried, "
              "stored once, 0 orphan files")


def http_get(url: str, session: str) -> tuple[int, dict, str]:
    """(status, headers, body) of a GET with the session cookie; errors included."""
    import urllib.error
    import urllib.request

    from django.conf import settings

    cookie = f"{settings.SESSION_COOKIE_NAME}={session}"
    ask = urllib.request.Request(url, headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(ask, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


class TestDatabaseCutUnderTheWebApp:
    def test_a_page_that_loses_the_database_answers_503_and_works_once_back(
            self, request, transactional_db, client, tmp_path):
        if not on_postgresql(request):
            return
        from django.conf import settings

        from tests.rating_data import curator_create

        client.force_login(curator_create("ann"))
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        db = connection.settings_dict
        proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
        port = free_port()
        env = {**os.environ, "DATABASE_URL": via_proxy_url(proxy),
               "PAINTRL_MEDIA_ROOT": str(tmp_path)}
        web = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}",
                                "--noreload"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        page = f"http://127.0.0.1:{port}/rate/"
        try:
            wait_for(lambda: _answers(page, session), timeout=60, worker=web)
            assert http_get(page, session)[0] == 200
            proxy.cut()
            status, headers, body = http_get(page, session)
            assert status == 503, body[:500]
            assert headers.get("Retry-After") == "30"
            assert "The database is unavailable" in body and "Traceback" not in body
            proxy.restore()
            assert http_get(page, session)[0] == 200
        finally:
            web.terminate()
            web.wait(timeout=30)
            proxy.close()


def _answers(url: str, session: str) -> bool:
    try:
        return http_get(url, session)[0] == 200
    except OSError:
        return False
