"""The pool app's kind of job (jobs.registry), registered when the app is
ready (apps.py)."""
from jobs.registry import JobKind, job_kind_register

from .models import RewardModel

# Seconds of CPU: the short worker, never behind a run on the train worker.
REWARD_MODEL = job_kind_register(JobKind(
    name="reward_model", label="Reward model", model=RewardModel, queue="short",
    url_name="admin:pool_rewardmodel_change", body="pool.reward.job.reward_model_body",
    stopping="will stop at its next epoch", claim={"progress": {"stage": "loading grades"}},
    after="pool.reward.services.reward_model_ended"))
