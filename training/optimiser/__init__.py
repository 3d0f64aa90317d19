"""The system prompt optimiser: GEPA (the `gepa` package) evolving a policy's
system prompt against a rubric, as a job on the train worker (job.py), with
its adapter (adapter.py), reflection model (reflection.py), lifecycle
services and selectors. The article's allow-list prompt came from such a run."""
