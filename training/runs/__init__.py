"""GRPO training runs: the engine and services (services.py), the run pages (views.py,
selectors.py, urls.py)."""
