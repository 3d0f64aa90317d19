"""Reference calibration (pool.band, training.calibration): who meets
whom, how answers become win rates, which members a band keeps, a
calibrated snapshot derived from them, the launch's refusals, the job on a
real train worker, and the snapshot page. The judge is the local reward
model (tests/lab_data.py's world); pictures are real PNGs."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from pool.band import (
    BAND,
    CalibrationError,
    WinRate,
    band_problems,
    pairings,
    rates_summary,
    references_kept,
    win_rates_sum,
)
from pool.models import PoolMember, PoolSnapshot
from pool.references import references_sample
from pool.services import PoolError
from tests.lab_data import lab_world
from tests.run_data import make_run
from tests.workers import run_worker, wait_for
from training.calibration.measure import RolloutPicture, win_rates_measure
from training.calibration.recalibrate import Recalibrator, recalibration_problems
from training.calibration.selectors import snapshot_calibrations
from training.calibration.services import (
    CalibrationLaunchError,
    calibration_launch,
    calibration_results_store,
    calibration_snapshot_derive,
)
from training.models import Calibration, Judge, MemberWinRate, PromptSet, Rubric, TrainingRun
from training.reward.inputs import SignalContext, rollout_from_render
from training.reward.judges import Picture
from training.reward.judges.local import LocalRewardModelJudge
from training.reward.rubric import signal_specs
from training.reward.scoring import signal_context_for
from training.runs.services import run_launch

Status = Calibration.Status


class TestPairings:
    def test_a_member_meets_its_own_subject_first_then_its_family(self):
        subjects = ["house", "tulip", "rose", "boat", "rose", "rose"]
        pairs = pairings([(7, "rose")], subjects, per_member=4, seed=0)
        met = [i for _, i in pairs]
        assert sorted(met[:3]) == [2, 4, 5]  # the roses
        assert met[3] == 1  # then the tulip, a flower too
        assert len(pairs) == 4

    def test_seeded_and_capped_at_the_rollouts_there_are(self):
        subjects = ["house"] * 5
        first = pairings([(1, "boat"), (2, "boat")], subjects, per_member=8, seed="a")
        assert first == pairings([(1, "boat"), (2, "boat")], subjects, per_member=8, seed="a")
        assert len(first) == 10  # 5 rollouts each, not 8
        orders = {tuple(i for m, i in pairings([(1, "boat")], subjects, per_member=5, seed=s))
                  for s in range(6)}
        assert len(orders) > 1

    def test_no_comparison_is_refused(self):
        with pytest.raises(CalibrationError, match="at least one comparison"):
            pairings([(1, "boat")], ["boat"], per_member=0, seed=0)


class TestWinRates:
    def test_an_unanswered_comparison_is_left_out_not_lost(self):
        pairs = [(1, 0), (1, 1), (1, 2), (2, 0), (3, 0)]
        rates = {r.member_id: r for r in win_rates_sum([1, 2, 3], pairs,
                                                        [1.0, None, 0.5, 0.25, None])}
        assert (rates[1].asked, rates[1].answered, rates[1].win_rate) == (3, 2, 0.75)
        assert rates[2].win_rate == 0.25
        assert rates[3].answered == 0 and rates[3].win_rate is None

    def test_the_band_keeps_its_members_and_tops_up_with_the_nearest(self):
        rates = {1: 0.1, 2: 0.3, 3: 0.5, 4: 0.8, 5: 0.95, 6: None}
        assert references_kept(rates, low=0.25, high=0.75) == [2, 3]
        # Four wanted: the two nearest outside the band join (0.8, then 0.1).
        assert references_kept(rates, low=0.25, high=0.75, least=4) == [1, 2, 3, 4]
        # A member with no answer is never kept, even to top up.
        assert 6 not in references_kept(rates, low=0.25, high=0.75, least=6)

    @pytest.mark.parametrize("low, high, said", [(0.8, 0.2, "below its high end"),
                                                 (0.5, 0.5, "below its high end"),
                                                 (-0.1, 0.5, "from 0 to 1")])
    def test_a_band_that_is_not_one_is_named(self, low, high, said):
        assert said in band_problems(low, high)[0]
        with pytest.raises(CalibrationError, match=said):
            references_kept({1: 0.5}, low=low, high=high)


@pytest.fixture
def world(media):
    return lab_world()


def rollouts_of(renders) -> list[RolloutPicture]:
    return [RolloutPicture(Picture.stored(r.png.name), r.sketch.prompt) for r in renders]


@pytest.mark.django_db
class TestMeasure:
    def test_a_win_rate_is_the_judges_mean_answer_over_the_rollouts_met(self, world):
        judge = LocalRewardModelJudge()
        members = list(world.snapshot.members.order_by("pk"))
        rollouts = rollouts_of(world.renders[:12])
        rates = win_rates_measure(members=members, rollouts=rollouts, judge=judge,
                                  per_member=5, seed=3)
        pairs = pairings([(m.pk, m.subject) for m in members],
                         [r.prompt for r in rollouts], per_member=5, seed=3)
        for member, rate in zip(members, rates, strict=True):
            met = [i for m, i in pairs if m == member.pk]
            answers = judge.compare([(rollouts[i].picture, Picture.stored(member.png))
                                     for i in met], [""] * len(met))
            assert rate.member_id == member.pk and rate.asked == rate.answered == 5
            assert rate.win_rate == pytest.approx(sum(answers) / len(answers))

    def test_loved_rollouts_beat_the_references_more_often_than_rejected_looking_ones(
            self, world):
        """The toy world's reward model prefers red (love) to blue (nope): a
        policy of red rollouts beats the references more often than a policy
        of blue ones."""
        judge = LocalRewardModelJudge()
        members = list(world.snapshot.members.order_by("pk"))
        by_grade = {g: [r for r in world.renders if r.grades.filter(value=g).exists()][:6]
                    for g in ("love", "nope")}
        mean = {}
        for grade, renders in by_grade.items():
            rates = win_rates_measure(members=members, rollouts=rollouts_of(renders),
                                      judge=judge, per_member=6, seed=0)
            mean[grade] = sum(r.win_rate for r in rates) / len(rates)
        assert mean["love"] > mean["nope"]


def finished_calibration(snapshot: PoolSnapshot, rates: dict[int, float | None]
                         ) -> Calibration:
    calibration = Calibration.objects.create(
        snapshot=snapshot, status=Status.DONE,
        config={"policy": {"label": "the built-in policy"}, "judge": {"name": "local"}})
    calibration_results_store(calibration_id=calibration.pk, rates=[
        WinRate(member_id=m, asked=4, answered=0 if r is None else 4,
                wins=0.0 if r is None else 4 * r) for m, r in rates.items()])
    return calibration


@pytest.mark.django_db
class TestDerivedSnapshot:
    def test_it_keeps_the_members_in_the_band_and_says_where_they_came_from(self, world):
        members = list(world.snapshot.members.order_by("pk"))
        rates = dict(zip([m.pk for m in members], [0.1, 0.3, 0.5, 0.75, 0.9, None],
                         strict=True))
        calibration = finished_calibration(world.snapshot, rates)
        derived = calibration_snapshot_derive(calibration=calibration, low=0.25, high=0.75,
                                              name="  calibrated   pool ", note="for run 9")
        assert derived.name == "calibrated pool" and derived.derived_from == world.snapshot
        kept = list(derived.members.order_by("pk"))
        assert [m.render_id for m in kept] == [m.render_id for m in members[1:4]]
        for new, old in zip(kept, members[1:4], strict=True):
            assert (new.tier, new.subject, new.prompt, new.code, new.seed, new.png) == \
                (old.tier, old.subject, old.prompt, old.code, old.seed, old.png)
        assert derived.derivation == {
            "calibration": calibration.pk, "band": [0.25, 0.75],
            "policy": {"label": "the built-in policy"}, "judge": {"name": "local"},
            "kept": 3, "of": 6,
            "summary": "that the built-in policy beat from 0.25 to 0.75 of the time, judged "
                       f"by local (calibration {calibration.pk})"}
        assert derived.counts["total"] == 3 and derived.rule == world.snapshot.rule
        # The parent is untouched.
        assert world.snapshot.members.count() == 6

    def test_an_empty_band_an_unfinished_job_and_a_taken_name_are_refused(self, world):
        members = list(world.snapshot.members.values_list("pk", flat=True))
        calibration = finished_calibration(world.snapshot, dict.fromkeys(members, 0.95))
        with pytest.raises(CalibrationError, match="widen the band"):
            calibration_snapshot_derive(calibration=calibration, low=0.25, high=0.75,
                                        name="empty")
        with pytest.raises(CalibrationError, match="below its high end"):
            calibration_snapshot_derive(calibration=calibration, low=0.9, high=0.2,
                                        name="upside down")
        with pytest.raises(PoolError, match="exists already"):
            calibration_snapshot_derive(calibration=calibration, low=0.9, high=1.0,
                                        name="lab pool")
        running = Calibration.objects.create(snapshot=world.snapshot, status=Status.RUNNING)
        with pytest.raises(CalibrationError, match="only a finished one"):
            calibration_snapshot_derive(calibration=running, low=0.0, high=1.0, name="too soon")
        assert PoolSnapshot.objects.count() == 1

    def test_a_snapshot_derived_before_summaries_gets_the_same_sentence(self, world):
        """Migration pool 0008 and derivation_summary write one sentence."""
        from importlib import import_module

        from django.db import connection
        from django.db.migrations.loader import MigrationLoader

        from training.calibration.services import derivation_summary

        # The models as the migration sees them (the app's own refuse updates).
        apps = MigrationLoader(connection).project_state(
            ("pool", "0008_derivation_summary")).apps
        old = {"calibration": 4, "band": [0.25, 0.75], "policy": {"label": "run 2"},
               "judge": {"name": "local"}, "kept": 3, "of": 6}
        derived = PoolSnapshot.objects.create(name="old", rule={}, counts={},
                                              derived_from=world.snapshot, derivation=old)
        import_module("pool.migrations.0008_derivation_summary").summaries_write(apps, None)
        derived.refresh_from_db()
        assert derived.derivation == {**old, "summary": derivation_summary(
            4, 0.25, 0.75, {"label": "run 2"}, {"name": "local"})}

    def test_a_re_calibrated_draw_comes_only_from_the_members_kept(self, world):
        members = list(world.snapshot.members.values_list("pk", flat=True))
        kept = members[:2]
        for seed in range(5):
            drawn = references_sample(world.snapshot, prompt="a toy painting", k=2,
                                      seed=seed, among=kept)
            assert {m.pk for m in drawn} == set(kept)
        with pytest.raises(ValueError, match="among the references kept"):
            references_sample(world.snapshot, prompt="x", k=1, among=[])


@pytest.mark.django_db
class TestSnapshotPage:
    def test_it_shows_each_members_win_rate_and_staff_derive_from_it(self, world, client):
        members = list(world.snapshot.members.order_by("pk"))
        rates = dict(zip([m.pk for m in members], [0.1, 0.3, 0.5, 0.6, 0.9, None],
                         strict=True))
        calibration = finished_calibration(world.snapshot, rates)
        staff = User.objects.create_user("boss", password="pw", is_staff=True)
        client.force_login(staff)
        page = client.get(reverse("pool:snapshot", args=[world.snapshot.pk]))
        text = page.content.decode()
        assert page.status_code == 200
        assert "beaten 0.30" in text and "beaten 0.90" in text and "no answer" in text
        assert "<strong>3</strong> members in the band 0.25-0.75" in text
        assert "1 below" in text and "1 above" in text
        posted = client.post(reverse("training:snapshot_derive", args=[world.snapshot.pk]),
                             {"calibration": calibration.pk, "low": 0.25, "high": 0.75,
                              "name": "kept", "note": ""})
        derived = PoolSnapshot.objects.get(name="kept")
        assert posted.status_code == 302 and derived.members.count() == 3
        derived_page = client.get(reverse("pool:snapshot", args=[derived.pk])).content.decode()
        assert "Derived from" in derived_page and "lab pool" in derived_page

    def test_a_refused_derive_says_why_and_freezes_nothing(self, staff_client, world, client):
        members = list(world.snapshot.members.values_list("pk", flat=True))
        calibration = finished_calibration(world.snapshot, dict.fromkeys(members, 0.05))
        refused = client.post(reverse("training:snapshot_derive", args=[world.snapshot.pk]),
                              {"calibration": calibration.pk, "low": 0.25, "high": 0.75,
                               "name": "none"})
        assert refused.status_code == 400 and "widen the band" in refused.content.decode()
        assert not PoolSnapshot.objects.filter(name="none").exists()


    def test_the_panel_refreshes_alone_and_without_htmx_sends_to_the_page(self, world, client):
        members = list(world.snapshot.members.values_list("pk", flat=True))
        finished_calibration(world.snapshot, dict.fromkeys(members, 0.5))
        client.force_login(User.objects.create_user("boss", password="pw", is_staff=True))
        url = reverse("training:snapshot_calibrations", args=[world.snapshot.pk])
        alone = client.get(url, headers={"HX-Request": "true"}).content.decode()
        assert alone.lstrip().startswith('<section class="card" id="calibrations"')
        assert "<strong>6</strong> members in the band" in alone
        plain = client.get(url + "?calibration=3")
        assert plain.status_code == 302 and plain.url == reverse(
            "pool:snapshot", args=[world.snapshot.pk]) + "?calibration=3#calibrations"

    def test_the_pool_page_stands_without_the_panel(self, world, client, settings):
        members = list(world.snapshot.members.values_list("pk", flat=True))
        finished_calibration(world.snapshot, dict.fromkeys(members, 0.5))
        settings.PAINTRL_SNAPSHOT_PANELS = ()
        client.force_login(User.objects.create_user("boss", password="pw", is_staff=True))
        page = client.get(reverse("pool:snapshot", args=[world.snapshot.pk])).content.decode()
        assert "lab pool" in page and "Calibration" not in page and "beaten" not in page


@pytest.mark.django_db
class TestLaunch:
    def test_every_reason_is_given_at_once(self, world, tmp_path):
        empty = PoolSnapshot.objects.create(name="empty", rule={}, counts={})
        gone = Judge.objects.create(name="removed backend", backend="gone")
        with pytest.raises(CalibrationLaunchError) as refused:
            calibration_launch(snapshot=empty, base_model=str(tmp_path / "nothing"),
                               judge=gone, samples_per_prompt=0)
        said = str(refused.value)
        for expected in ("holds no references", "no policy at", "samples_per_prompt must be",
                         "judge removed backend: judge backend 'gone' is not configured"):
            assert expected in said
        assert not Calibration.objects.exists()

    def test_any_sampling_setting_may_be_chosen_and_nothing_else(
            self, world, policy_folder, django_capture_on_commit_callbacks):
        with django_capture_on_commit_callbacks():
            calibration = calibration_launch(
                snapshot=world.snapshot, base_model=str(policy_folder), temperature=0.7,
                chat_template_kwargs={"enable_thinking": False}, max_completion_length=None)
        config = calibration.config
        assert (config["temperature"], config["chat_template_kwargs"]) == (
            0.7, {"enable_thinking": False})
        assert config["max_completion_length"] == 512  # None: a new run's default
        with pytest.raises(TypeError, match=r"not a calibration's: \[.top_p.\]"):
            calibration_launch(snapshot=world.snapshot, base_model=str(policy_folder), top_p=0.9)


@pytest.fixture
def worker(media, transactional_db, settings):
    generator = run_worker("train", media, settings,
                           env={"PAINTRL_RENDER_BROWSERS": "1", "PAINTRL_RENDER_DEADLINE_S": "8"})
    yield next(generator)
    next(generator, None)


class TestJob:
    @pytest.mark.worker
    def test_the_train_worker_samples_renders_and_measures(self, media, worker, canned_policy):
        """The canned policy writes painter sketches the gate passes, so every
        rollout renders and every member is measured against them."""
        world = lab_world()
        prompts = PromptSet.objects.create(name="calibrate", prompts=["a red barn", "a lake"])
        calibration = calibration_launch(
            snapshot=world.snapshot, base_model=str(canned_policy), prompt_set=prompts,
            samples_per_prompt=4, per_member=3, max_completion_length=48, seed=1)
        assert calibration.config["policy"]["path"] == str(canned_policy)
        wait_for(lambda: Calibration.objects.get(pk=calibration.pk).is_finished, timeout=240)
        calibration.refresh_from_db()
        progress = calibration.progress
        assert calibration.status == Status.DONE, calibration.error
        assert progress["rollouts"] == progress["rendered"] == 8, progress
        rates = list(calibration.win_rates.all())
        assert {r.member_id for r in rates} == set(
            PoolMember.objects.filter(snapshot=world.snapshot).values_list("pk", flat=True))
        assert all(r.asked == r.answered == 3 for r in rates)
        assert all(r.win_rate is not None and 0 <= r.win_rate <= 1 for r in rates)
        summary = rates_summary(rates, *BAND).progress()
        assert {key: progress[key] for key in summary} == summary

    def test_nothing_rendered_is_said_not_scored_0(self):
        """A policy whose rollouts all fail the gate has no win rate to
        measure: the job fails and says so (its body, run here in-process)."""
        from sketches.rendering import REJECTED, RenderOutcome
        from training.calibration.job import _nothing_rendered

        said = _nothing_rendered([RenderOutcome(REJECTED, ["no_code"], {})] * 3)
        assert "none of the policy's 3 rollouts rendered (no_code (3))" in said
        assert "scores 0" in said


def recalibrator_for(world, *, every: int = 2, band=(0.25, 0.75), start_step: int = 0,
                     k: int = 2) -> tuple[Recalibrator, SignalContext]:
    local = Judge.objects.get(name="local")
    context = signal_context_for(judge=local, scorer=local, snapshot=world.snapshot)
    specs = signal_specs([{"name": "pairwise", "kind": "pairwise", "weight": 1.0,
                           "params": {"k": k}}])
    # One run for every recalibrator of a test: a calibration points at its run.
    run = TrainingRun.objects.first() or make_run("no policy: nothing samples here")
    return Recalibrator(run_id=run.pk, plan={"every": every, "band": list(band), "per_member": 4},
                        specs=specs, context=context, seed=5, judge_name="local",
                        start_step=start_step), context


@pytest.mark.django_db
class TestRecalibrator:
    def test_a_due_step_measures_and_narrows_the_draw_to_the_band(self, world):
        recalibrator, context = recalibrator_for(world, band=(0.3, 0.7))
        rollouts = [rollout_from_render(r) for r in world.renders[:8]] + [
            rollout_from_render(world.rejected)]
        assert recalibrator.after_step(1, rollouts) == {"calibration": None, "references": 6}
        assert not Calibration.objects.exists() and context.references_among is None
        record = recalibrator.after_step(2, rollouts)
        calibration = Calibration.objects.get()
        assert record == {"calibration": None, "references": 6, "measured": calibration.pk,
                          "kept": len(calibration.config["kept"]), "of": 6}
        rates = dict(calibration.win_rates.values_list("member_id", "win_rate"))
        assert calibration.config["kept"] == references_kept(rates, low=0.3, high=0.7, least=2)
        assert calibration.progress["rollouts"] == 9 and calibration.progress["rendered"] == 8
        assert all(r.asked == 4 for r in calibration.win_rates.all())
        assert context.references_among == frozenset(calibration.config["kept"])
        # The next steps' pairwise references come from the kept members only.
        assert recalibrator.after_step(3, rollouts) == {
            "calibration": calibration.pk, "references": len(calibration.config["kept"])}
        drawn = references_sample(world.snapshot, prompt="a toy painting", k=2, seed=1,
                                  among=context.references_among)
        assert {m.pk for m in drawn} <= set(calibration.config["kept"])

    def test_a_resume_draws_from_what_its_last_calibration_kept(self, world):
        rollouts = [rollout_from_render(r) for r in world.renders[:8]]
        first, _ = recalibrator_for(world)
        first.after_step(2, rollouts)
        measured = Calibration.objects.get()
        resumed, context = recalibrator_for(world, start_step=3)
        assert resumed.calibration_id == measured.pk
        assert context.references_among == frozenset(measured.config["kept"])
        earlier, context = recalibrator_for(world, start_step=1)
        assert earlier.calibration_id is None and context.references_among is None

    def test_a_resume_discards_the_re_calibrations_of_the_steps_it_discards(self, world):
        """A resume from step 3 trains steps 4 on again: the calibration step
        4 measured goes with that step's rows, so the snapshot's page does not
        show it beside the one the resumed step 4 measures."""
        from training.runs.job import rows_discard

        rollouts = [rollout_from_render(r) for r in world.renders[:8]]
        recalibrator, _ = recalibrator_for(world, every=2)
        recalibrator.after_step(2, rollouts)
        recalibrator.after_step(4, rollouts)
        run = TrainingRun.objects.get()
        assert sorted(run.calibrations.values_list("step", flat=True)) == [2, 4]
        kept = run.calibrations.get(step=2)
        assert rows_discard(run, after_step=3)["calibrations"] == 1
        assert list(run.calibrations.all()) == [kept]
        assert snapshot_calibrations(world.snapshot) == [kept]
        assert not MemberWinRate.objects.filter(calibration__step=4).exists()
        resumed, context = recalibrator_for(world, start_step=3)
        assert resumed.calibration_id == kept.pk

    def test_a_step_with_nothing_rendered_keeps_the_references(self, world):
        recalibrator, context = recalibrator_for(world, every=1)
        record = recalibrator.after_step(1, [rollout_from_render(world.rejected)])
        assert record["measured"] is None and "no rollout rendered" in record["why"]
        assert not Calibration.objects.exists() and context.references_among is None

    def test_a_run_that_cannot_re_calibrate_is_refused_with_the_way_out(self, world):
        gate_only = Rubric.objects.create(name="gate only",
                                          signals=[{"kind": "gate", "weight": 1.0}])
        run = TrainingRun(name="r", rubric=gate_only, snapshot=None, recalibrate_every=2,
                          calibration_band_low=0.8, calibration_band_high=0.2)
        said = "; ".join(recalibration_problems(run))
        assert "below its high end" in said
        assert "no weighted pairwise signal" in said and "choose one" in said
        assert recalibration_problems(TrainingRun(name="off", rubric=gate_only)) == []


@pytest.mark.worker
class TestRunRecalibrates:
    def test_each_step_of_a_real_run_measures_and_records_the_references_it_drew_from(
            self, media, worker, canned_policy):
        world = lab_world()
        v2 = Rubric.objects.get(name="v2")
        run = run_launch(run=make_run(canned_policy, rubric=v2, snapshot=world.snapshot,
                                      max_steps=2, recalibrate_every=1))
        assert run.launched_config["recalibration"] == {"every": 1, "band": [0.25, 0.75],
                                                        "per_member": 8}
        wait_for(lambda: TrainingRun.objects.get(pk=run.pk).is_finished, timeout=400,
                 worker=worker)
        run.refresh_from_db()
        assert run.status == TrainingRun.Status.DONE, run.error
        steps = list(run.steps.order_by("step"))
        assert [s.step for s in steps] == [1, 2]
        measured = {c.step: c for c in run.calibrations.all()}
        for step in steps:
            record = step.calibration
            # Every step was due; the first drew from the whole snapshot.
            assert "measured" in record, record
            if step.step == 1:
                assert record["calibration"] is None and record["references"] == 6
            # The canned policy's sketches pass the gate: each step measured.
            assert step.gate_pass == 1.0, record
            assert measured[step.step].pk == record["measured"]
            assert record["kept"] == len(measured[step.step].config["kept"])
        # The second step drew from what the first one kept.
        assert steps[1].calibration["calibration"] == measured[1].pk


@pytest.mark.django_db
class TestCalibratePage:
    def test_staff_launch_from_the_page_and_land_on_the_snapshot(self, staff_client, world, client,
                                                                 canned_policy):
        page = client.get(reverse("training:calibrate") + f"?snapshot={world.snapshot.pk}")
        assert page.status_code == 200 and "Calibrate a snapshot" in page.content.decode()
        posted = client.post(reverse("training:calibrate"), {
            "snapshot": world.snapshot.pk, "base_model": str(canned_policy),
            "samples_per_prompt": 2, "per_member": 3, "seed": 4})
        calibration = Calibration.objects.get()
        assert posted.status_code == 302
        assert posted["Location"].endswith(
            reverse("pool:snapshot", args=[world.snapshot.pk]) + "#calibrations")
        config = calibration.config
        assert (config["judge"]["name"], config["prompt_set"]["name"]) == (
            "local", "painter subjects")
        assert config["samples_per_prompt"] == 2 and config["per_member"] == 3
        listed = client.get(reverse("pool:snapshot", args=[world.snapshot.pk])).content.decode()
        assert f"{canned_policy}, judged by local" in listed and "Queued" in listed

    def test_a_refusal_is_shown_on_the_form_and_queues_nothing(
            self, staff_client, world, client, tmp_path):
        refused = client.post(reverse("training:calibrate"), {
            "snapshot": world.snapshot.pk, "base_model": str(tmp_path / "none"),
            "samples_per_prompt": 2, "per_member": 3, "seed": 0})
        assert refused.status_code == 400 and "no policy at" in refused.content.decode()
        assert not Calibration.objects.exists()
