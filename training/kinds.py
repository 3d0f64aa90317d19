"""The training app's kinds of job (jobs.registry), registered when the app
is ready (apps.py)."""
from jobs.registry import JobKind, job_kind_register

from .models import Calibration, PolicyBuild, PromptOptimisation, Replay, TrainingRun
from .policy.services import PolicyBuildError
from .runs.conf import stale_s

# Seconds to minutes of judging: the short worker.
REPLAY = job_kind_register(JobKind(
    name="replay", label="Replay", model=Replay, queue="short", url_name="training:replay",
    body="training.lab.job.replay_body", stopping="will stop after its current batch"))
# Hours on the policy's device: the train worker, which has it to itself.
RUN = job_kind_register(JobKind(
    name="run", label="Training run", model=TrainingRun, queue="train",
    url_name="training:run", body="training.runs.job.run_body",
    progress="training.runs.presenters.run_job_progress",
    stopping="will stop at the end of its current step and save a checkpoint",
    stale_s=stale_s,
    # A run's length is its max_steps: no bound fits every run, so this one
    # only frees a train worker a hung run (a stuck device call) would hold
    # for good. A run that meets it fails and resumes from its last checkpoint.
    time_limit_s=72 * 3600.0))
# These sample the policy and render like a run: the train worker too.
PROMPT_OPTIMISATION = job_kind_register(JobKind(
    name="prompt_optimisation", label="Prompt optimisation", model=PromptOptimisation,
    queue="train", url_name="admin:training_promptoptimisation_change",
    body="training.optimiser.job.optimisation_body",
    stopping="will stop at its next evaluation, keeping the candidates found so far",
    claim={"progress": {"stage": "loading"}},
    # Its budget (max_metric_calls) is sampling and rendering like a run's
    # steps: a day, so a hung reflection model cannot hold the train worker.
    time_limit_s=24 * 3600.0))
CALIBRATION = job_kind_register(JobKind(
    name="calibration", label="Calibration", model=Calibration, queue="train",
    url_name="pool:snapshot", url_arg="snapshot_id",
    body="training.calibration.job.calibration_body",
    stopping="will stop at its next prompt or batch of comparisons",
    claim={"progress": {"stage": "loading"}},
    # One pass of sampling and judging, shorter than a run: half a day, so a
    # hung judge cannot hold the train worker.
    time_limit_s=12 * 3600.0))
# A build samples nothing but trains on the CPU or GPU for minutes to an
# hour: the train worker, which has the cores for it.
POLICY_BUILD = job_kind_register(JobKind(
    name="policy_build", label="Policy build", model=PolicyBuild, queue="train",
    url_name="admin:training_policybuild_change",
    body="training.policy.job.policy_build_body",
    progress="training.policy.selectors.policy_build_progress",
    failed_as_is=(FileExistsError, PolicyBuildError),
    # The recipe trains for fixed steps and yields to renders, so a busy
    # machine makes it slower, not endless: six hours frees the train worker
    # from one that hung.
    time_limit_s=6 * 3600.0))
