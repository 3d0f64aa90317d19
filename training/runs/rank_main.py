"""The body of each process `accelerate launch` starts for a multi-process
run (supervisor.py builds the command):

    python -m training.runs.rank_main --run-id N --token T --worker-pid P \
        [--checkpoint DIR] --progress-extra JSON

Each process joins the others (accelerate's PartialState: gloo on CPUs, NCCL
on GPUs, and this process's GPU chosen before the model loads on it), checks
that the launcher started as many processes as the run asks for (the
batch's split depends on it), and trains (worker.run_train) through the
worker's claim `T`; only the main one writes (ranks.py).

A thread watches the worker: should it die (killed, its machine lost), the
process stops what it started and itself, so nothing trains, or beats, for
a run that no worker watches. The run then stalls and may be resumed.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import threading
import time

import psutil

from .processes import ProcessTree, running

logger = logging.getLogger("training.runs.rank_main")

# How often each process looks for the worker: a dead worker's run goes on
# beating for at most this long.
WORKER_CHECK_S = 2.0


def main(argv: list[str] | None = None) -> None:
    from torch.distributed.elastic.multiprocessing.errors import record

    # record: a process's exception reaches the launcher's summary, which
    # ends the log (and so the failed run's error), not only the process's output.
    record(_main)(argv)


def _main(argv: list[str] | None) -> None:
    args = _parser().parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")
    import django

    django.setup()
    _watch_worker(args.worker_pid)
    # After django.setup(): rank_train imports the models.
    from .rank_train import rank_train

    rank_train(run_id=args.run_id, token=args.token, checkpoint=args.checkpoint,
               progress_extra=json.loads(args.progress_extra))


def _watch_worker(pid: int) -> None:
    """Stop this process and its children once the worker `pid` is gone."""
    try:
        worker = psutil.Process(pid)
    except psutil.NoSuchProcess:
        worker = None

    def watch() -> None:
        while worker is not None and running(worker):
            time.sleep(WORKER_CHECK_S)
        logger.error("the train worker (pid %s) is gone: this process stops", pid)
        tree = ProcessTree(os.getpid())
        for process in tree.alive():
            if process.pid != os.getpid():
                process.kill()
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="paintrl-worker-watch", daemon=True).start()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-id", type=int, required=True)
    parser.add_argument("--token", required=True, help="the worker's claim on the run")
    parser.add_argument("--worker-pid", type=int, required=True,
                        help="the train worker watching these processes")
    parser.add_argument("--checkpoint", default="", help="the folder to resume from")
    parser.add_argument("--progress-extra", default="{}",
                        help="JSON kept in every progress row the run writes")
    return parser


if __name__ == "__main__":
    main()
