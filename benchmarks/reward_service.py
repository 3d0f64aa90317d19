"""The reward service under load: an external run's batches posted to the API
(POST /api/v1/external-runs/{name}/rewards) through gunicorn as the
production profile runs it (scripts/web.sh), rendered by two render workers
(the local fleet: one browser each, as fleet_bench.py starts them) and
stored, as a trainer elsewhere (verl, OpenRLHF, TRL) would use it, through
the adapters' own client (training.external.adapters.client.RewardClient).

Three parts, each optional (--parts):

  throughput  batches of 8, 64 and 256 items (--batches), each posted
              --rounds times, one request at a time: items a second and each
              request's latency (p50, p95, max).
  overhead    the same batch of --overhead-batch items scored three ways,
              taking turns --overhead-rounds times: through the service
              (HTTP, the fleet through Redis, the stored rows); in this
              process through the same fleet (FleetRenderer), then the same
              rubric's totals (training.reward.scoring.totals_compute),
              nothing stored; and in this process on two browsers of its own
              (ProcessRenderer), then the same totals. The ratios of the
              medians are what the service adds to the fleet, and what the
              service and the fleet together add to rendering here.
  soak        --soak-minutes of batches of --soak-batch items from two
              clients at once, each its own steps; every fifth batch sent
              again under its key once answered (an engine's resend). At
              --kill-at of the way through, one render worker is SIGKILLed
              with its browsers and --restart-after seconds later a new one
              is started. Checked at the end, from the answers and the
              database: every item answered, each batch stored once
              (ExternalBatch, ExternalItem, Sketch and Render rows equal to
              the items posted), every resend answered from what was stored
              (the same answers, nothing rendered again), and how many items
              came back with no total (unavailable renders).

The sketches are the painter's (sketches.painter, --size px, seeds from 0),
eight completions to a group, as GRPO sends them. The rubric is the gate and
the length bound: its judges cost the same either way, so the figures are
the service's own and the renders'. It asserts nothing about speed; it exits
1 when the soak loses an item, stores one twice, or leaves one unanswered.

    .venv/bin/python benchmarks/reward_service.py [--parts throughput,overhead,soak]
        [--batches 8:6,64:3,256:2] [--soak-minutes 20] [--size 400]
        [--postgres-url postgres://postgres@127.0.0.1:5432/reward_service_bench]
        [--redis redis://127.0.0.1:6379/13]

The PostgreSQL database named is dropped and made afresh, the Redis database
emptied. Loopback only. Compare runs on one machine only; docs/benchmarks.md
has this machine's figures.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fleet_bench import worker_start, worker_stop, workers_ready  # noqa: E402
from rating_bench import database_recreate  # noqa: E402

DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/reward_service_bench"
RUN = "bench"
GROUP = 8  # completions a prompt, as a GRPO step sends them
RUBRIC = [{"name": "gate", "kind": "gate", "weight": 1},
          {"name": "length", "kind": "length", "weight": 1,
           "params": {"mode": "bound", "max_tokens": 5000}}]
RESEND_EVERY = 5
# gunicorn's threads: the soak's two clients, a resend and room to spare.
WEB_THREADS = 8


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"p50 {statistics.median(ordered):.1f} s, p95 {p95:.1f} s, "
            f"max {ordered[-1]:.1f} s")


@dataclass
class Sketches:
    """The painter's sketches, handed out in order, round and round."""

    texts: list[str]
    prompts: list[str]
    next: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def items(self, count: int) -> list[dict]:
        with self.lock:
            start, self.next = self.next, self.next + count
        chosen = [(start + i) % len(self.texts) for i in range(count)]
        # Group-mates answer one prompt: the group's first sketch's.
        return [{"prompt": self.prompts[chosen[i - i % GROUP]], "completion": self.texts[c],
                 "group": f"g{(start + i) // GROUP}"} for i, c in enumerate(chosen)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="throughput,overhead,soak")
    parser.add_argument("--batches", default="8:6,64:3,256:2",
                        help="batch size:requests, for the throughput part")
    parser.add_argument("--overhead-batch", type=int, default=64)
    parser.add_argument("--overhead-rounds", type=int, default=2)
    parser.add_argument("--soak-minutes", type=float, default=20.0)
    parser.add_argument("--soak-batch", type=int, default=32)
    parser.add_argument("--kill-at", type=float, default=0.35,
                        help="share of the soak after which a render worker is killed")
    parser.add_argument("--restart-after", type=float, default=120.0,
                        help="seconds from the kill to a new render worker")
    parser.add_argument("--size", type=int, default=400, help="painter canvas side")
    parser.add_argument("--sketches", type=int, default=512,
                        help="distinct painter sketches to draw items from")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13",
                        help="Redis database for broker and results, emptied first")
    args = parser.parse_args()
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    unknown = parts - {"throughput", "overhead", "soak"}
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")

    folder = Path(tempfile.mkdtemp(prefix="paintrl-reward-service-"))
    database_recreate(args.postgres_url)
    env = {"DATABASE_URL": args.postgres_url, "REDIS_URL": args.redis,
           "PAINTRL_MEDIA_ROOT": str(folder / "media"), "PAINTRL_RENDER_BROWSERS": "1",
           "PAINTRL_WEB_WORKERS": "1", "PAINTRL_WEB_THREADS": str(WEB_THREADS)}
    os.environ.update(env, DJANGO_SETTINGS_MODULE="paintrl_site.settings")
    import django

    django.setup()
    import redis
    from django.core.management import call_command
    from django.db import connection

    from sketches.painter import paint

    redis.Redis.from_url(args.redis).flushdb()
    call_command("migrate", verbosity=0)
    token = service_setup()
    connection.close()

    painted = [paint(seed, size=args.size) for seed in range(args.sketches)]
    sketches = Sketches([p.code for p in painted],
                        [f"a painting of {p.meta.get('subject', 'something')}" for p in painted])
    print(f"machine: {os.cpu_count()} CPUs; {args.sketches} painter sketches at {args.size} px; "
          f"rubric gate + length; 2 render workers, one browser each; gunicorn 1 process x "
          f"{WEB_THREADS} threads on PostgreSQL", flush=True)

    from tests.grade_posts_harness import web_production

    names = [f"bench{i}-{os.getpid()}@{socket.gethostname()}" for i in range(2)]
    workers = [worker_start(name) for name in names]
    failed = False
    try:
        workers_ready(names, workers, sketches.texts[0])
        with web_production(env, folder, token) as port:
            client = reward_client(port, token)
            if "throughput" in parts:
                throughput(client, sketches, args.batches)
            if "overhead" in parts:
                overhead(client, sketches, args.overhead_batch, args.overhead_rounds)
            if "soak" in parts:
                failed = not soak(client, sketches, args, names, workers)
    finally:
        for proc in workers:
            worker_stop(proc)
    return 1 if failed else 0


def service_setup() -> str:
    """The open external run and a token that may score it."""
    from django.contrib.auth.models import Permission

    from api.tokens import token_create
    from tests.lab_data import presets_ensure
    from tests.rating_data import curator_create
    from training.external.services import external_run_open
    from training.models import ExternalRun, Judge, Rubric

    presets_ensure()
    local = Judge.objects.get(name="local")
    external_run_open(run=ExternalRun.objects.create(
        name=RUN, rubric=Rubric.objects.create(name="gate and length", signals=RUBRIC),
        judge=local, scorer=local))
    user = curator_create("trainer", staff=True)
    user.user_permissions.add(Permission.objects.get(codename="score_externalrun"))
    return token_create(user=user, name="bench")[1]


def reward_client(port: int, token: str):
    from tests.grade_posts_harness import HOST
    from training.external.adapters.client import RewardClient

    # The production profile redirects plain HTTP unless its TLS proxy says
    # https: the header a proxy in front would set.
    return RewardClient(f"http://{HOST}:{port}", RUN, token,
                        headers={"X-Forwarded-Proto": "https", "Host": HOST})


def post(client, items: list[dict], key: str, step: int) -> tuple[list[dict], float]:
    started = time.perf_counter()
    answers = client.score(items, client_key=key, step=step)
    return answers, time.perf_counter() - started


# --- throughput ------------------------------------------------------------------------------

def throughput(client, sketches: Sketches, plan: str) -> None:
    print("\nthroughput: one request at a time", flush=True)
    print(f"{'batch':>6} {'requests':>8} {'items/s':>8}  latency")
    for spec in plan.split(","):
        size, requests = (int(x) for x in spec.split(":"))
        latencies, items = [], 0
        for r in range(requests):
            batch = sketches.items(size)
            answers, seconds = post(client, batch, f"tp-{size}-{r}-{time.time_ns()}", r)
            assert len(answers) == size
            latencies.append(seconds)
            items += size
        print(f"{size:6d} {requests:8d} {items / sum(latencies):8.2f}  {spread(latencies)}",
              flush=True)


# --- overhead --------------------------------------------------------------------------------

def overhead(client, sketches: Sketches, size: int, rounds: int) -> None:
    """Service against in process, two ways: the same render fleet called from
    this process (what the service adds: HTTP, the batch's claim, the stored
    rows) and two browsers of this process's own (what the fleet adds too)."""
    from dataclasses import replace

    from sketches.conf import renderer_config
    from sketches.renderer import RenderPool
    from training.external.services import group_seed
    from training.models import ExternalRun
    from training.reward.inputs import rollout_from_outcome
    from training.reward.rubric import rubric_specs
    from training.reward.scoring import signal_context_for, totals_compute
    from training.sampling.renderers import FleetRenderer, ProcessRenderer

    print(f"\noverhead: one batch of {size}, through the service, through the fleet from this "
          f"process and on this process's two browsers, {rounds} rounds taking turns",
          flush=True)
    batch = sketches.items(size)
    texts = [i["completion"] for i in batch]
    run = ExternalRun.objects.get(name=RUN)
    specs = rubric_specs(run.signals, run.dropped_signals)

    def in_process(renderer, r: int, way: str) -> tuple[float, list]:
        started = time.perf_counter()
        seeds = [group_seed(run.seed, 1000 + r, i["group"]) for i in batch]
        keys = [f"{way}:{r}:{n}" for n in range(size)]
        outcomes = renderer(texts, seeds, keys).outcomes
        rollouts = [rollout_from_outcome(key=k, prompt=i["prompt"], text=i["completion"],
                                         outcome=o, group=i["group"])
                    for k, i, o in zip(keys, batch, outcomes, strict=True)]
        _, totals = totals_compute(specs, rollouts, signal_context_for(
            judge=run.judge, scorer=run.scorer, snapshot=run.snapshot, seed=f"{way}:{r}"))
        return time.perf_counter() - started, totals

    times: dict[str, list[float]] = {"service": [], "fleet": [], "browsers": []}
    with RenderPool(replace(renderer_config(), browsers=2)) as pool:
        browsers = ProcessRenderer(pool)
        browsers(texts[:2], [0, 0], ["warm:0", "warm:1"])  # both browsers up
        for r in range(rounds):
            answers, seconds = post(client, batch, f"oh-{r}-{time.time_ns()}", 1000 + r)
            times["service"].append(seconds)
            fleet_s, fleet_totals = in_process(FleetRenderer(), r, "fleet")
            times["fleet"].append(fleet_s)
            own_s, own_totals = in_process(browsers, r, "browsers")
            times["browsers"].append(own_s)
            served = [a["total"] for a in answers]
            same = sum(a == b == c for a, b, c
                       in zip(served, fleet_totals, own_totals, strict=True))
            print(f"  round {r + 1}: service {seconds:.1f} s, fleet from here {fleet_s:.1f} s, "
                  f"own browsers {own_s:.1f} s; totals equal {same}/{size}", flush=True)
    service = statistics.median(times["service"])
    for way, label in (("fleet", "the fleet called from this process"),
                       ("browsers", "this process's own two browsers")):
        ratio = service / statistics.median(times[way])
        print(f"service / {label} (medians): {ratio:.2f} ({(ratio - 1) * 100:+.0f} %)",
              flush=True)


# --- soak ------------------------------------------------------------------------------------

@dataclass
class Soaker:
    """One client's soak: its batches, their answers and what they took."""

    name: str
    sent: dict[str, tuple[int, list[dict]]] = field(default_factory=dict)  # key: step, items
    answers: dict[str, list[dict]] = field(default_factory=dict)
    resends: list[tuple[str, bool]] = field(default_factory=list)  # key, answered the same
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (at, seconds)
    errors: list[str] = field(default_factory=list)


def soak(client, sketches: Sketches, args, names: list[str], workers: list) -> bool:
    from tests.workers import worker_kill

    minutes = args.soak_minutes
    print(f"\nsoak: {minutes:g} min, two clients, batches of {args.soak_batch}; render worker "
          f"{names[0].split('-')[0]} killed at {args.kill_at:.0%}, a new one "
          f"{args.restart_after:g} s later", flush=True)
    started = time.monotonic()
    end = started + 60 * minutes
    soakers = [Soaker(f"client{i}") for i in range(2)]
    threads = [threading.Thread(target=soak_loop, args=(client, sketches, s, args.soak_batch,
                                                        started, end)) for s in soakers]
    for thread in threads:
        thread.start()
    kill_at = started + args.kill_at * 60 * minutes
    time.sleep(max(0.0, kill_at - time.monotonic()))
    worker_kill(workers[0])
    killed = time.monotonic() - started
    print(f"  {killed:.0f} s: killed {names[0]}", flush=True)
    time.sleep(args.restart_after)
    names.append(f"bench2-{os.getpid()}@{socket.gethostname()}")
    workers.append(worker_start(names[-1]))
    print(f"  {time.monotonic() - started:.0f} s: started {names[-1]}", flush=True)
    for thread in threads:
        thread.join()
    return soak_report(soakers, killed, args.restart_after, started)


def soak_loop(client, sketches: Sketches, me: Soaker, size: int, started: float,
              end: float) -> None:
    step = 0
    while time.monotonic() < end:
        step += 1
        items = sketches.items(size)
        key = f"soak-{me.name}-{step}"
        me.sent[key] = (step, items)
        at = time.monotonic() - started
        try:
            answers, seconds = post(client, items, key, step)
        except Exception as error:  # noqa: BLE001 - counted and shown, the soak goes on
            me.errors.append(f"{key}: {type(error).__name__}: {error}")
            continue
        me.answers[key] = answers
        me.latencies.append((at, seconds))
        if step % RESEND_EVERY == 0:
            again, _ = post(client, items, key, step)
            me.resends.append((key, again == answers))


def soak_report(soakers: list[Soaker], killed: float, restart_after: float,
                started: float) -> bool:
    from django.db import connection

    from sketches.models import Render, Sketch
    from training.models import ExternalBatch, ExternalItem

    connection.close()  # read what the server wrote, afresh
    sent = {k: v for s in soakers for k, v in s.sent.items()}
    answered = {k: v for s in soakers for k, v in s.answers.items()}
    items_sent = sum(len(items) for _, items in sent.values())
    unanswered = [k for k, (_, items) in sent.items()
                  if k not in answered or len(answered[k]) != len(items)
                  or any(a["render_id"] is None for a in answered[k])]
    batches = ExternalBatch.objects.filter(client_key__startswith="soak-")
    stored_items = ExternalItem.objects.filter(batch__in=batches)
    render_ids = list(stored_items.values_list("render_id", flat=True))
    sketch_ids = list(stored_items.values_list("sketch_id", flat=True))
    renders = Render.objects.filter(sketch_id__in=sketch_ids).count()
    sketches = Sketch.objects.filter(pk__in=sketch_ids).count()
    resends = [r for s in soakers for r in s.resends]
    no_total = sum(a["total"] is None for v in answered.values() for a in v)
    statuses: dict[str, int] = {}
    for answers in answered.values():
        for a in answers:
            statuses[a["gate"]["status"]] = statuses.get(a["gate"]["status"], 0) + 1
    latencies = [(at, s) for so in soakers for at, s in so.latencies]
    around = [s for at, s in latencies if killed - 60 <= at <= killed + restart_after + 60]
    elapsed = max((at + s for at, s in latencies), default=0.0)
    print(f"  batches sent {len(sent)}, answered {len(answered)}, items {items_sent}; "
          f"{items_sent / elapsed:.2f} items/s over {elapsed / 60:.1f} min")
    print(f"  latency {spread([s for _, s in latencies])}; batches sent from a minute before "
          f"the kill to a minute after the restart: {spread(around)}")
    print(f"  gate: {', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}; "
          f"no total {no_total}")
    print(f"  stored: batches {batches.count()} (done "
          f"{batches.filter(status=ExternalBatch.Status.DONE).count()}), items "
          f"{len(render_ids)}, distinct renders {len(set(render_ids))}, sketches {sketches}, "
          f"renders of those sketches {renders}")
    print(f"  resends {len(resends)}: answered the same {sum(same for _, same in resends)}")
    errors = [e for s in soakers for e in s.errors]
    for error in errors[:5]:
        print(f"  error: {error}")
    ok = (not unanswered and not errors and len(answered) == len(sent)
          and batches.count() == len(sent) and len(render_ids) == items_sent
          and len(set(render_ids)) == items_sent == sketches == renders
          and all(same for _, same in resends))
    print(f"{'PASS' if ok else 'FAIL'}  every item answered ({len(unanswered)} batches not), "
          f"each stored once, every resend answered from what was stored")
    return ok


if __name__ == "__main__":
    sys.exit(main())
