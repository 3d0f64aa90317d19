"""GRPO training runs: the lifecycle (services.py), the worker's run body (job.py) with
the engine (engine.py) and its checkpoint folders (checkpoints.py), the run pages (views.py,
selectors.py, presenters.py, urls.py); the GRPO settings (config.py)."""
