"""Demo render benchmark: how long does a fresh `make demo` take to render its
whole corpus on this machine, with the built-in policy building beside it?

Does what `make demo` does, in a throwaway folder (its own SQLite database,
media folder and policy folder, Redis database 13): migrate, seed_corpus
--count N, bootstrap_policy --if-missing --queue, then starts the Procfile's
render, default, train and short workers, and watches the renders until none is
pending, printing progress every --every seconds. It ends with the time from
the workers' start to the last render (its time as stored, not the poll that
saw it), renders per minute, the verdicts, and where the policy build was by
then. Nothing of the throwaway run is kept.

With --first-run STEPS it goes on as a newcomer would once the policy is
ready: the simulated curator grades the corpus (standing in for a person),
a reward model trains on the short worker and is activated, a snapshot is
frozen, and a run with the new-run form's defaults and STEPS steps is
launched on the train worker; it prints the fresh demo's timeline (first
render, last render, policy ready, first run done, from the workers' start;
it starts no web server) and that run's gate pass per step.

    .venv/bin/python benchmarks/demo_renders.py [--count 1664] [--every 30] [--no-policy]
        [--wait-policy] [--first-run 3]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PYTHON = sys.executable
REDIS_URL = "redis://127.0.0.1:6379/13"
# The Procfile's workers, as honcho starts them for make demo.
WORKERS = {
    "render": ["-Q", "render", "-P", "threads", "-c",
               os.environ.get("PAINTRL_RENDER_BROWSERS", "2"), "-n", "render@bench"],
    "default": ["-Q", "default", "-c", "1", "-n", "default@bench"],
    "train": ["-Q", "train", "-c", "1", "-n", "train@bench"],
    "short": ["-Q", "short", "-c", "1", "-n", "short@bench"],
}


def manage(env: dict, *args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db, timeout=30) as conn:
        return dict(conn.execute("SELECT status, COUNT(*) FROM sketches_render GROUP BY status"))


def rendered_at(db: Path, which: str = "MAX") -> float:
    """When the last (MAX) or first (MIN) render was stored, in epoch seconds:
    the polls only bound it."""
    assert which in ("MIN", "MAX")
    with sqlite3.connect(db, timeout=30) as conn:
        (text,) = conn.execute(f"SELECT {which}(rendered) FROM sketches_render").fetchone()
    # Django keeps aware datetimes in SQLite as UTC text without the offset.
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def policy_build(db: Path, policy_dir: Path) -> tuple[str, dict, str] | None:
    """The newest build row of `policy_dir` (training.models.PolicyBuild):
    its status, progress and error, read from the bench's database as the
    render counts are (this process sets up no Django)."""
    with sqlite3.connect(db, timeout=30) as conn:
        row = conn.execute("SELECT status, progress, error FROM training_policybuild "
                           "WHERE out = ? ORDER BY created DESC LIMIT 1",
                           (str(policy_dir.resolve()),)).fetchone()
    return None if row is None else (row[0], json.loads(row[1] or "{}"), row[2])


def policy_state(db: Path, policy_dir: Path) -> str:
    build = policy_build(db, policy_dir)
    if build is None:
        return "not started"
    status, progress, error = build
    message = error or progress.get("message", "")
    return f"{status}, {100 * (progress.get('done') or 0):.0f} % of SFT, {message[:60]}"


def policy_building(db: Path, policy_dir: Path) -> bool:
    build = policy_build(db, policy_dir)
    return build is None or build[0] in ("queued", "running")


def first_run_launch(steps: int) -> int:
    """In a Django process on the bench's database: the newcomer's steps
    between grading and a run (simulated grades, a reward model trained on the
    short worker and activated, a snapshot), then a run of `steps` steps with
    the new-run form's defaults, launched; prints and returns its id."""
    import django

    django.setup()
    from jobs.models import LIVE
    from pool.models import RewardModel
    from pool.reward.services import reward_model_create
    from pool.reward.simulated import grades_simulate
    from pool.services import snapshot_freeze
    from training.models import TrainingRun
    from training.runs.selectors import run_defaults
    from training.runs.services import run_launch

    grades_simulate(seed=0)
    job = reward_model_create(config={"sources": "simulated"}, activate=True)
    while job.status in LIVE:
        time.sleep(2)
        job = RewardModel.objects.get(pk=job.pk)
    if not job.active:
        raise SystemExit(f"the reward model is {job.status}, not active: {job.error}")
    snapshot_freeze(name="first pool")
    defaults = {f"{field}_id": pk for field, pk in run_defaults().items()}
    run = TrainingRun.objects.create(name="first run", max_steps=steps, **defaults)
    run_launch(run=run)
    print(json.dumps({"run": run.pk, "reward_model": job.version,
                      "heldout_accuracy": job.metrics.get("heldout_pairwise_accuracy")}))
    return run.pk


def first_run_wait(db: Path, run_id: int, every: float) -> dict:
    """Poll the run until it ends; its status, error and per-step gate pass."""
    while True:
        with sqlite3.connect(db, timeout=30) as conn:
            status, error = conn.execute("SELECT status, error FROM training_trainingrun "
                                         "WHERE id = ?", (run_id,)).fetchone()
            steps = conn.execute("SELECT step, gate_pass, reward_mean FROM training_trainingstep "
                                 "WHERE run_id = ? ORDER BY step", (run_id,)).fetchall()
        if status not in ("queued", "running"):
            return {"status": status, "error": error, "steps": steps}
        time.sleep(every)


def main() -> None:
    if sys.argv[1:2] == ["--launch-first-run"]:  # the Django half of --first-run
        first_run_launch(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1664)
    parser.add_argument("--every", type=float, default=30.0)
    parser.add_argument("--no-policy", action="store_true", help="do not build the policy")
    parser.add_argument("--policy-dir", type=Path, default=None,
                        help="build the policy here and keep it (default: thrown away)")
    parser.add_argument("--wait-policy", action="store_true",
                        help="after the renders, go on until the policy build ends")
    parser.add_argument("--first-run", type=int, default=0, metavar="STEPS",
                        help="then train a reward model, freeze a snapshot and run STEPS steps")
    args = parser.parse_args()
    args.wait_policy = args.wait_policy or bool(args.first_run)

    with tempfile.TemporaryDirectory(prefix="paintrl-demo-bench-") as tmp:
        tmp = Path(tmp)
        db = tmp / "demo.sqlite3"
        policy_dir = args.policy_dir or tmp / "policies" / "builtin"
        policy_dir.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}",
               "PAINTRL_MEDIA_ROOT": str(tmp / "media"), "PAINTRL_POLICY_DIR": str(policy_dir),
               "REDIS_URL": REDIS_URL}
        subprocess.run(["redis-cli", "-n", "13", "flushdb"], check=True, stdout=subprocess.DEVNULL)
        manage(env, "migrate", "--noinput")
        procs = []
        try:
            start, start_wall = time.monotonic(), time.time()
            for name, worker_args in WORKERS.items():
                log = open(tmp / f"{name}.log", "w")
                procs.append(subprocess.Popen(
                    [PYTHON, "-m", "celery", "-A", "paintrl_site", "worker", *worker_args,
                     "--loglevel", "WARNING"], cwd=ROOT, env=env, stdout=log, stderr=log,
                    start_new_session=True))
            manage(env, "seed_corpus", "--count", str(args.count))
            if not args.no_policy:
                manage(env, "bootstrap_policy", "--if-missing", "--queue")
            seeded = time.monotonic() - start
            print(f"seeded {args.count} sketches in {seeded:.0f} s; workers started", flush=True)
            while True:
                time.sleep(args.every)
                now = counts(db)
                pending = now.get("pending", 0)
                done = sum(now.values()) - pending
                elapsed = time.monotonic() - start
                rate = done / elapsed * 60
                eta = pending / rate if rate else float("inf")
                print(f"{elapsed / 60:6.1f} min  {done}/{sum(now.values())} rendered "
                      f"({rate:.0f}/min, ~{eta:.0f} min left)  "
                      f"policy: {policy_state(db, policy_dir)}", flush=True)
                if pending == 0:
                    break
            total = rendered_at(db) - start_wall
            print()
            print(f"all {sum(now.values())} renders done in {total / 60:.1f} min from the workers' "
                  f"start to the last render ({sum(now.values()) / total * 60:.0f} renders/min)")
            print("verdicts: " + ", ".join(f"{n} {s}" for s, n in sorted(now.items())))
            print(f"policy build by then: {policy_state(db, policy_dir)}")
            while args.wait_policy and not args.no_policy and policy_building(db, policy_dir):
                time.sleep(args.every)
                print(f"{(time.monotonic() - start) / 60:6.1f} min  policy: "
                      f"{policy_state(db, policy_dir)}", flush=True)
            if args.wait_policy:
                policy_ready = time.monotonic() - start
                print(f"policy build ended {policy_ready / 60:.1f} min from the "
                      f"workers' start: {policy_state(db, policy_dir)}")
            if args.first_run:
                launched = subprocess.run(
                    [PYTHON, __file__, "--launch-first-run", str(args.first_run)], cwd=ROOT,
                    env={**env, "DJANGO_SETTINGS_MODULE": "paintrl_site.settings"}, check=True,
                    capture_output=True, text=True).stdout.strip().splitlines()[-1]
                launch = json.loads(launched)
                print(f"reward model v{launch['reward_model']} (held-out pairwise accuracy "
                      f"{launch['heldout_accuracy']}), snapshot frozen, run launched at "
                      f"{(time.monotonic() - start) / 60:.1f} min")
                outcome = first_run_wait(db, launch["run"], args.every / 3)
                run_done = time.monotonic() - start
                error = f": {outcome['error']}" if outcome["error"] else ""
                print(f"first run {outcome['status']}{error}")
                for step, gate, reward in outcome["steps"]:
                    print(f"  step {step}: gate pass {gate}, mean reward {reward}")
                first = rendered_at(db, "MIN") - start_wall
                print(f"\ntimeline (min from the workers' start): first render "
                      f"{first / 60:.1f}, last render {total / 60:.1f}, "
                      f"policy ready {policy_ready / 60:.1f}, first run done {run_done / 60:.1f}")
        finally:
            for proc in procs:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            for proc in procs:
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
            subprocess.run(["redis-cli", "-n", "13", "flushdb"], stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
