"""The life every background job shares (an import, a reward-model training, a
replay, a GRPO run, and the jobs to come): one abstract model (models.Job) and
the writes that move a job along it (services: claim, progress, cancel,
finish).

Below every app: sketches, the lowest, builds on it, and it imports none of
them. An app's job is a model that inherits Job, a task that claims it, and a
body that writes progress and finishes it through jobs.services."""
