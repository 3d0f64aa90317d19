"""Where a job samples: the device chosen once, the policy loaded on it with
the deployment's thread count, and its memory given back when the job ends
(a GPU worker takes the next job in the same process)."""
from __future__ import annotations

from pathlib import Path

from ..policy import policy_load
from . import conf


class DeviceUnavailable(RuntimeError):
    """The job asks for a device this worker does not have; the message says what to do."""


def device_choose(device: str) -> str:
    """"auto": a CUDA GPU when there is one, else the CPU; "cuda" refused on a worker without."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise DeviceUnavailable("the run asks for a CUDA GPU and this worker has none "
                                "(choose device auto or cpu, or run it on a GPU worker)")
    return device


def threads_set(device: str) -> None:
    """PAINTRL_RUN_THREADS for torch on the CPU (conf.torch_threads says why)."""
    import torch

    if (threads := conf.torch_threads()) and device == "cpu":
        torch.set_num_threads(threads)


def policy_open(path: str | Path, *, device: str = "auto"):
    """(model, tokenizer, device): the policy at `path` on the device chosen,
    the threads set (training.policy.policy_load: never downloads)."""
    device = device_choose(device)
    threads_set(device)
    model, tokenizer = policy_load(path, device=device)
    return model, tokenizer, device


def memory_release() -> None:
    """Give a finished job's model, optimizer and caches back."""
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
