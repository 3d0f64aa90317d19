"""The life every background job shares (an import, a reward-model training,
a replay, a GRPO run, a prompt optimisation, a calibration): one abstract
model (models.Job), the kinds of job (registry: each app registers its own
in its AppConfig.ready), one runner on a worker (runner: a leased claim,
the kind's body, the ending; lease: the claim and every write after it),
one Celery task for every kind (tasks), queueing on commit (dispatch), and
the writes a cancel or a page makes (services, selectors).

Below every app: sketches, the lowest, builds on it, and it imports none of
them. An app's job is a model that inherits Job, a kind that names it, its
queue, its page, what a cancel stops at and its body (a dotted path, so a
web process never imports what a body needs), and services that queue it
through dispatch.job_enqueue."""
