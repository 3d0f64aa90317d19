"""The system prompt optimiser (training.optimiser): GEPA evolving a system
prompt on the train worker. The policy (tests/policy_data.py's), its renders
in real Chromium and the rubric are real; only the reflection model, a hosted
service, is a stand-in on loopback (tests/fake_reflection_server.py) that
proposes the current prompt plus a line naming what the feedback told it (or,
to be rejected, the current prompt unchanged).

The test policy writes sketch-shaped text the gate mostly rejects, which is
what the feedback tests need: violations to report. The rubric is a gate and
a length ramp, so candidates' scores differ with what the policy writes."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from jobs.runner import job_run_here
from jobs.services import CancelOutcome
from sketches.rendering import render_text
from tests.fake_reflection_server import FakeReflectionServer
from tests.sketch_files import read_sketch
from tests.workers import run_worker, wait_for
from training.models import (
    Judge,
    PromptCandidate,
    PromptOptimisation,
    PromptSet,
    Rubric,
    SystemPrompt,
    TrainingRun,
)
from training.optimiser import selectors, services
from training.optimiser.adapter import Example, prompt_result
from training.optimiser.config import OptimisationConfig
from training.optimiser.services import OptimisationError
from training.presets import SYSTEM_PROMPT
from training.reward.inputs import rollout_from_outcome
from training.reward.scoring import signal_context_for, signals_compute

Status = PromptOptimisation.Status
RUBRIC = [{"name": "gate", "kind": "gate", "weight": 0.3},
          {"name": "length", "kind": "length", "weight": 0.7,
           "params": {"mode": "ramp", "target_tokens": 64}}]
PROMPTS = ["a red barn", "a blue lake"]
# Two prompts, one at a time: the seed takes 2 metric calls, an iteration 2
# (the parent and the new candidate on one prompt) and 1 more when the new
# one is accepted (its other prompt).
TINY = {"samples_per_prompt": 2, "minibatch_size": 1, "max_completion_length": 48,
        "max_metric_calls": 9}
# GEPA reads its budget before each iteration, so the last one may spend past
# it: at most an iteration's 3 calls, begun with 1 call left.
MOST_METRIC_CALLS = TINY["max_metric_calls"] - 1 + 3
# One browser: the machine's two cores are shared with sampling.
WORKER_ENV = {"PAINTRL_RENDER_BROWSERS": "1", "PAINTRL_RENDER_DEADLINE_S": "8"}


def reflection_judge(url: str, **fields) -> Judge:
    fields = {"api_key_env": "", **fields}
    return Judge.objects.create(name=f"reflection {Judge.objects.count()}", backend="openai",
                                base_url=url, model="fake-reflector", retries=0, timeout_s=10,
                                **fields)


def make_job(policy, reflection: Judge, *, seed_text: str = SYSTEM_PROMPT,
             **settings) -> PromptOptimisation:
    local = Judge.objects.get_or_create(name="local (test)", defaults={"backend": "local"})[0]
    return PromptOptimisation.objects.create(
        name="tiny", base_model=str(policy),
        prompt_set=PromptSet.objects.get_or_create(name="two", defaults={"prompts": PROMPTS})[0],
        seed_prompt=SystemPrompt.objects.create(name="allow-list (test)", text=seed_text),
        rubric=Rubric.objects.create(name="gate and ramp", signals=RUBRIC),
        judge=local, scorer=local, reflection=reflection, **{**TINY, **settings})


def fresh(job: PromptOptimisation) -> PromptOptimisation:
    return PromptOptimisation.objects.get(pk=job.pk)


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def assert_rejected_on_its_minibatch(proposal: PromptCandidate) -> None:
    """A rejected proposal as stored: scored on its minibatch only, no better
    there than its parent, whose minibatch results are its stored results on
    those prompts (the same text at the same seeds: the adapter's memo)."""
    parent = proposal.parent
    assert proposal.index is None and not proposal.accepted and not proposal.on_front
    assert parent is not None and parent.accepted and proposal.iteration >= 1
    minibatch = [r["index"] for r in proposal.results]
    assert len(minibatch) == TINY["minibatch_size"]
    assert [r["prompt"] for r in proposal.results] == [PROMPTS[i] for i in minibatch]
    for result in proposal.results:
        assert result["samples"] == result["judged"] == TINY["samples_per_prompt"]
    assert proposal.mean_score == pytest.approx(mean(r["score"] for r in proposal.results))
    assert proposal.parent_minibatch_score == pytest.approx(
        mean(parent.results[i]["score"] for i in minibatch))
    assert proposal.mean_score <= proposal.parent_minibatch_score  # GEPA keeps only a rise
    judged = sum(r["judged"] for r in proposal.results)
    assert proposal.gate_pass == sum(r["gate_passed"] for r in proposal.results) / judged
    assert proposal.unknown_method_rate == sum(
        r["unknown_method"] for r in proposal.results) / judged


@pytest.fixture
def worker(media, transactional_db, settings):
    generator = run_worker("train", media, settings, env=WORKER_ENV)
    yield next(generator)
    next(generator, None)


@pytest.mark.worker
class TestOnTheTrainWorker:
    def test_a_job_stores_its_candidates_and_the_feedback_reaches_the_reflection_model(
            self, worker, test_policy, settings):
        """Whatever GEPA decides about each proposal: which ones it keeps rides on the
        test policy's samples, and so on the CPU's floating-point kernels, so this asserts
        what holds for every decision (each proposal stored once, as a candidate or as
        rejected no better than its parent). The next test makes GEPA reject by
        construction."""
        with FakeReflectionServer() as server:
            job = services.optimisation_launch(job=make_job(
                test_policy, reflection_judge(server.url)))
            wait_for(lambda: fresh(job).is_finished, timeout=300, worker=worker)
        job = fresh(job)
        assert job.status == Status.DONE, job.error
        assert TINY["max_metric_calls"] <= job.progress["metric_calls"] <= MOST_METRIC_CALLS
        assert job.launched_config["versions"]["gepa"] == "0.1.4"
        assert job.launched_config["renders"] == settings.PAINTRL_RUN_RENDERS == "process"

        candidates = list(selectors.candidates_of(job))
        seed, *children = candidates
        assert (seed.index, seed.parent, seed.text) == (0, None, SYSTEM_PROMPT)
        for candidate in candidates:
            assert [r["prompt"] for r in candidate.results] == PROMPTS
            for result in candidate.results:
                assert result["samples"] == result["judged"] == TINY["samples_per_prompt"]
                assert 0 <= result["score"] <= 1 and set(result["signals"]) == {"gate", "length"}
            assert candidate.mean_score == pytest.approx(
                sum(r["score"] for r in candidate.results) / len(PROMPTS))
            judged = sum(r["judged"] for r in candidate.results)
            assert candidate.gate_pass == sum(r["gate_passed"] for r in candidate.results) / judged
            assert candidate.unknown_method_rate == sum(
                r["unknown_method"] for r in candidate.results) / judged
        for child in children:
            # A stand-in's proposal, made from its parent's text.
            assert child.text in server.proposals
            assert child.text.startswith(child.parent.text + "\n")
            assert child.parent.index < child.index and child.iteration >= 1

        # Every proposal is stored: kept as a candidate, or rejected on its minibatch.
        rejected = list(selectors.proposals_rejected_of(job))
        assert sorted([c.text for c in children] + [p.text for p in rejected]) == sorted(
            server.proposals)
        assert server.proposals and job.progress["proposals"] == len(server.proposals)
        for proposal in rejected:
            assert proposal.text.startswith(proposal.parent.text + "\n")
            assert_rejected_on_its_minibatch(proposal)

        # The feedback it read named the gate's violations and unknown methods
        # its parents' sketches had, and the line it added says so.
        assert server.reflections
        every_violation = {v for c in candidates for r in c.results for v in r["violations"]}
        every_unknown = {m for c in candidates for r in c.results for m in r["unknown_methods"]}
        assert every_violation, "the test policy's sketches all passed the gate"
        told = "\n".join(server.reflections)
        assert "The gate's violations:" in told and "Reward " in told
        for child in children:
            parent_results = child.parent.results
            named = {v for r in parent_results for v in r["violations"]} | {
                m for r in parent_results for m in r["unknown_methods"]}
            added = child.text.rsplit("\n", 1)[1]
            assert any(name in added for name in named), (added, named)
        for method in every_unknown:
            assert method in told

        # The Pareto front holds the best on each prompt; the best has the top mean.
        best = selectors.candidate_best(job)
        assert best.mean_score == max(c.mean_score for c in candidates)
        front = {c.index for c in candidates if c.on_front}
        for prompt_index in range(len(PROMPTS)):
            top = max(c.results[prompt_index]["score"] for c in candidates)
            assert {c.index for c in candidates
                    if c.results[prompt_index]["score"] == top} <= front
        assert all(any(c.results[i]["score"] == max(o.results[i]["score"] for o in candidates)
                       for i in range(len(PROMPTS))) for c in candidates if c.on_front)

    def test_a_proposal_no_better_than_its_parent_is_stored_rejected_and_off_the_front(
            self, worker, test_policy):
        """The stand-in proposes its parent's text unchanged: the same samples,
        a tie on the minibatch, which GEPA rejects (it keeps only a rise). The
        seed's text has no trailing newline, as GEPA strips the text it reads
        back from the reflection model's answer."""
        with FakeReflectionServer(unchanged=True) as server:
            job = services.optimisation_launch(job=make_job(
                test_policy, reflection_judge(server.url), seed_text=SYSTEM_PROMPT.strip(),
                max_metric_calls=6))
            wait_for(lambda: fresh(job).is_finished, timeout=300, worker=worker)
        job = fresh(job)
        assert job.status == Status.DONE, job.error

        seed, *children = selectors.candidates_of(job)
        assert children == [] and seed.index == 0
        rejected = list(selectors.proposals_rejected_of(job))
        assert len(rejected) == len(server.proposals) == job.progress["proposals"] >= 1
        for proposal in rejected:
            assert (proposal.text, proposal.parent) == (seed.text, seed)
            assert_rejected_on_its_minibatch(proposal)
            assert proposal.mean_score == proposal.parent_minibatch_score
            assert proposal.results == [seed.results[r["index"]] for r in proposal.results]
        assert selectors.candidate_best(job) == seed and seed.on_front

    def test_cancel_stops_a_running_job_and_keeps_its_candidates(self, worker, test_policy):
        with FakeReflectionServer() as server:
            job = services.optimisation_launch(job=make_job(
                test_policy, reflection_judge(server.url), max_metric_calls=200))
            wait_for(lambda: PromptCandidate.objects.filter(optimisation=job).exists(),
                     timeout=300, worker=worker)
            cancel = services.optimisation_cancel(job=job)
            assert cancel.outcome == CancelOutcome.STOPPING, cancel.message
            wait_for(lambda: fresh(job).is_finished, timeout=120, worker=worker)
        job = fresh(job)
        assert job.status == Status.CANCELLED, job.error
        assert job.progress["metric_calls"] < 200
        assert PromptCandidate.objects.filter(optimisation=job, index=0).exists()


class TestFeedback:
    def test_it_names_the_gate_violations_and_the_unknown_brush_method(self, browser_pool, db):
        """A real render of a sketch calling brush.watercolor, scored by the real rubric."""
        text = read_sketch("hostile/unknown_brush_method.js")
        outcome = render_text(browser_pool, text, 0)
        rollout = rollout_from_outcome(key="k", prompt="a wash", text=text, outcome=outcome)
        local = Judge(name="local", backend="local")
        specs = Rubric(signals=RUBRIC).specs()
        values = signals_compute(specs, [rollout], signal_context_for(judge=local, scorer=local))
        result = prompt_result(Example(0, "a wash"), texts=[text], outcomes=[outcome],
                               values=values, specs=specs)
        assert "unknown_brush_method" in outcome.violations
        feedback = result.feedback()
        assert "The gate passed 0 of 1 sketches." in feedback
        assert "unknown_brush_method (1 of 1)" in feedback
        assert "p5.brush does not have: watercolor (1 sketches)" in feedback
        assert result.record()["unknown_methods"] == {"watercolor": 1}
        assert result.example == text


class TestErrors:
    def test_a_missing_key_variable_fails_the_job_before_any_sampling(self, db, policy_folder,
                                                                      monkeypatch):
        monkeypatch.delenv("GEPA_TEST_API_KEY", raising=False)
        with FakeReflectionServer(api_key="sesame") as server:
            job = services.optimisation_launch(job=make_job(
                policy_folder, reflection_judge(server.url, api_key_env="GEPA_TEST_API_KEY")))
            job = job_run_here(kind="prompt_optimisation", pk=job.pk)
            assert server.requests == []
        assert job.status == Status.FAILED
        assert "GEPA_TEST_API_KEY" in job.error and "not set on the train worker" in job.error
        assert not PromptCandidate.objects.filter(optimisation=job).exists()

    def test_a_wrong_key_or_a_dead_endpoint_fails_the_job_saying_so(self, db, policy_folder,
                                                                    monkeypatch):
        monkeypatch.setenv("GEPA_TEST_API_KEY", "wrong")
        with FakeReflectionServer(api_key="sesame") as server:
            job = services.optimisation_launch(job=make_job(
                policy_folder, reflection_judge(server.url, api_key_env="GEPA_TEST_API_KEY")))
            job = job_run_here(kind="prompt_optimisation", pk=job.pk)
            url = server.url
        assert job.status == Status.FAILED
        assert f"fake-reflector at {url} did not answer: HTTP 401" in job.error
        assert "wrong" not in job.error  # the key itself is never shown

        # The server is gone now: nothing answers at its address.
        job = services.optimisation_launch(job=make_job(policy_folder, reflection_judge(url)))
        job = job_run_here(kind="prompt_optimisation", pk=job.pk)
        assert job.status == Status.FAILED
        assert "did not answer: connection error, after 1 tries" in job.error

    def test_a_launch_refuses_what_cannot_run_and_says_why(self, db, tmp_path):
        local = Judge.objects.create(name="local judge", backend="local")
        job = make_job(tmp_path / "none", local, max_metric_calls=3, minibatch_size=3)
        with pytest.raises(OptimisationError) as refused:
            services.optimisation_launch(job=job)
        message = str(refused.value)
        assert "no policy at" in message
        assert "'local judge' is a local judge: choose a judge row of backend openai" in message
        assert "minibatch_size 3 must be between 1 and the prompt set's 2 prompts" in message
        assert "max_metric_calls 3 leaves no iteration" in message
        assert fresh(job).status == Status.DRAFT


class TestSettingsFrozenAtLaunch:
    """A run's GRPO settings were frozen at its launch and the optimiser's
    worker read its live row: now both run with what they were launched with."""

    def test_a_row_edited_after_the_launch_changes_nothing_about_the_job(
            self, db, policy_folder, django_capture_on_commit_callbacks):
        job = make_job(policy_folder, reflection_judge("http://127.0.0.1:9/v1"),
                       max_metric_calls=12, seed=4)
        with django_capture_on_commit_callbacks():
            job = services.optimisation_launch(job=job)
        launched = OptimisationConfig.launched(job)
        PromptOptimisation.objects.filter(pk=job.pk).update(
            max_metric_calls=99, minibatch_size=1, samples_per_prompt=7, seed=5, temperature=0.5)
        assert OptimisationConfig.launched(fresh(job)) == launched
        assert (launched.max_metric_calls, launched.seed) == (12, 4)
        assert job.launched_config["settings"] == launched.to_dict()

    def test_a_job_launched_before_settings_were_frozen_runs_with_its_row(
            self, db, policy_folder):
        job = make_job(policy_folder, reflection_judge("http://127.0.0.1:9/v1"))
        PromptOptimisation.objects.filter(pk=job.pk).update(
            status=Status.QUEUED, launched_config={"prompts": PROMPTS})
        assert OptimisationConfig.launched(fresh(job)) == OptimisationConfig.of(job)


class TestSaveAsRevision:
    def test_a_candidate_becomes_the_next_revision_a_run_can_use(self, db, policy_folder):
        job = make_job(policy_folder, reflection_judge("http://127.0.0.1:9/v1"))
        seed = PromptCandidate.objects.create(optimisation=job, index=0, text=SYSTEM_PROMPT,
                                              iteration=0, mean_score=0.2)
        child = PromptCandidate.objects.create(optimisation=job, index=1, parent=seed,
                                               text=SYSTEM_PROMPT + "\nNo brush.watercolor.",
                                               iteration=1, mean_score=0.3)
        prompt = services.candidate_save_as_prompt(candidate=child)
        assert (prompt.name, prompt.version, prompt.text) == (
            "allow-list (test)", 2, child.text)
        assert services.candidate_save_as_prompt(candidate=child) == prompt  # once only
        assert child.system_prompt == prompt
        rejected = services.proposal_rejected_store(
            job_id=job.pk, text=SYSTEM_PROMPT + "\nNo brush.spray.", parent_index=1,
            iteration=2, metric_calls=6, results=[], mean_score=0.1,
            parent_minibatch_score=0.3)
        with pytest.raises(OptimisationError, match="GEPA rejected it on its minibatch"):
            services.candidate_save_as_prompt(candidate=rejected)
        assert SystemPrompt.objects.filter(name="allow-list (test)").count() == 2
        run = TrainingRun.objects.create(
            name="with it", prompt_set=job.prompt_set, system_prompt=prompt,
            rubric=job.rubric, judge=job.judge, scorer=job.scorer)
        assert run.system_prompt.text.endswith("No brush.watercolor.")

    def test_the_page_shows_the_front_and_the_best_and_saves_from_a_button(self, client, db,
                                                                           policy_folder):
        staff = User.objects.create_superuser("admin", "a@example.com", "pw")
        client.force_login(staff)
        job = make_job(policy_folder, reflection_judge("http://127.0.0.1:9/v1"))
        seed = PromptCandidate.objects.create(
            optimisation=job, index=0, text="the seed prompt", iteration=0, mean_score=0.2,
            on_front=True, results=[{"prompt": p, "score": 0.2} for p in PROMPTS])
        PromptCandidate.objects.create(
            optimisation=job, index=1, parent=seed, text="the better prompt", iteration=1,
            mean_score=0.4, on_front=True,
            results=[{"index": 0, "prompt": PROMPTS[0], "score": 0.6},
                     {"index": 1, "prompt": PROMPTS[1], "score": 0.2}])
        # Rejected on prompt 0, where its parent scored 0.6: its minibatch mean
        # is above the best's mean over the prompt set, and it is still not the best.
        services.proposal_rejected_store(
            job_id=job.pk, text="the rejected prompt", parent_index=1, iteration=2,
            metric_calls=6, mean_score=0.5, parent_minibatch_score=0.6,
            results=[{"index": 0, "prompt": PROMPTS[0], "score": 0.5, "judged": 2,
                      "gate_passed": 1, "unknown_method": 2}])
        page = client.get(reverse("admin:training_promptoptimisation_change", args=[job.pk]))
        html = page.content.decode()
        assert page.status_code == 200
        assert "Best: candidate 1" in html and "the better prompt" in html
        assert html.count("on the Pareto front") == 2
        assert "Pareto front (the best on at least one prompt): candidates 0, 1." in html
        assert "Proposals GEPA rejected on their minibatch (1)" in html
        assert "0.500 against the parent's 0.600" in html and "the rejected prompt" in html
        assert html.count("Save as a new system prompt revision") == 2
        save = reverse("admin:training_promptoptimisation_save_candidate", args=[job.pk])
        response = client.post(save, {"candidate": "1"})
        assert response.status_code == 302
        saved = SystemPrompt.objects.get(name="allow-list (test)", version=2)
        assert saved.text == "the better prompt"

