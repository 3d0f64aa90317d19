"""The fixed evaluation probe: a run with probe_every set needs a finished
yardstick disjoint from the local judge's reward model and a pool snapshot,
or its launch says what to do; a launch freezes the probe's prompts, seeds
and references; on a real train worker a run probes at step 0 and after
every probe_every-th step, the same prompts at the same seeds each time, each
sample scored by the yardstick (0 for a rejected sketch, None for an
unavailable render); a resume stores no probe twice; the probe leaves
training's random numbers as they were; the run and compare pages show it.

The world is tests/lab_data.py's (toy renders graded by hue, a small reward
model trained and active, a pool snapshot), with a yardstick trained on the
grades its reward model held out; the policy and runs are
tests/test_training_runs.py's."""
from __future__ import annotations

import random

import pytest
from django.urls import reverse

from jobs.runner import job_run_here
from pool.reward import services as reward_services
from sketches.models import Render, Sketch
from tests.lab_data import WORLD_RENDERS, lab_world, yardstick_world
from tests.rating_data import curator_create
from tests.reward_data import toy_render
from tests.run_data import (
    fresh,
    make_run,
    steps_of,
    train_worker_start,
    worker_stop,
)
from tests.sketch_files import read_sketch
from tests.workers import wait_for
from training.models import Judge, Probe, ProbeSample, Rollout, TrainingRun, TrainingStep
from training.runs import services
from training.runs.probe.plan import PROBE_EVERY, PROBE_PROMPTS, PROBE_SAMPLES, probe_prompts
from training.runs.probe.selectors import probe_means
from training.runs.services import RunError

Status = TrainingRun.Status
def probe_rows(run: TrainingRun) -> list[tuple[int, int, int, str, int]]:
    """(step, prompt index, sample index, prompt, render seed) of every probe sample."""
    return [(s.probe.step, s.prompt_index, s.index, s.prompt, s.render.seed)
            for s in ProbeSample.objects.filter(probe__run=run)
            .select_related("probe", "render").order_by("probe__step", "prompt_index", "index")]


def rollout_codes(run: TrainingRun) -> dict[tuple[int, int, int], str]:
    return {(r.step, r.group, r.index): r.sketch.code
            for r in Rollout.objects.filter(run=run).select_related("sketch")}


@pytest.mark.django_db
class TestLaunch:
    def test_a_probe_without_a_yardstick_is_refused_with_the_way_out(self, policy_folder):
        run = make_run(policy_folder, probe_every=5)
        with pytest.raises(RunError) as error:
            services.run_launch(run=run)
        message = str(error.value)
        for expected in ("probe_every is 5 and no yardstick is chosen",
                         '"Train a yardstick disjoint from the selected model"',
                         "or set probe_every to 0"):
            assert expected in message
        assert fresh(run).status == Status.DRAFT

    def test_a_yardstick_must_be_finished_disjoint_from_the_judges_model_with_a_pool(
            self, media, policy_folder):
        world, yardstick = yardstick_world()
        judge = world.reward_model
        # The judge's own model, and an ordinary model trained on the same grades.
        ordinary = reward_services.reward_model_create(config={"sources": "human"}, queue=False)
        for chosen, expected in (
                (judge, f"the yardstick v{judge.version} was not trained disjoint from "
                        f"v{judge.version}, the reward model the run's local judge uses"),
                (ordinary, f"the yardstick, reward model v{ordinary.version}, is queued: "
                           "wait until it has trained")):
            run = make_run(policy_folder, probe_every=5, yardstick=chosen, snapshot=world.snapshot)
            with pytest.raises(RunError, match=expected):
                services.run_launch(run=run)
        no_pool = make_run(policy_folder, probe_every=5, yardstick=yardstick)
        assert services.run_problems(no_pool) == [
            "the yardstick scores each picture against references from the pool snapshot: "
            "choose a snapshot that has members"]
        # A judge that is not the local reward model takes any finished yardstick.
        vision = Judge.objects.create(name="vision", backend="openai")
        other = make_run(policy_folder, probe_every=5, yardstick=judge, snapshot=world.snapshot)
        TrainingRun.objects.filter(pk=other.pk).update(judge=vision, scorer=vision)
        assert services.run_problems(fresh(other)) == []

    def test_launch_freezes_the_probe_and_a_clone_copies_it(self, media, policy_folder,
                                                            ):
        world, yardstick = yardstick_world()
        run = services.run_launch(run=make_run(policy_folder, probe_every=3, seed=7,
                                               yardstick=yardstick, snapshot=world.snapshot))
        probe = run.launched_config["probe"]
        members = dict(world.snapshot.members.values_list("pk", "render_id"))
        assert probe == {
            "every": 3, "yardstick": {"id": yardstick.pk, "version": yardstick.version,
                                      "role": "trained"},
            "judge_reward_model": world.reward_model.version,
            "prompts": ["a red barn", "a blue lake", "a green hill"], "samples": PROBE_SAMPLES,
            "seeds": [7, 8, 9],
            # Fewer members than PROBE_REFERENCES: every one, each once.
            "references": [{"member": pk, "render": members[pk]} for pk in sorted(members)]}
        clone = services.run_clone(run=run)
        assert (clone.probe_every, clone.yardstick) == (3, yardstick)
        # Without a probe, nothing is frozen for one.
        plain = services.run_launch(run=make_run(policy_folder))
        assert plain.launched_config["probe"] is None

    def test_the_probe_prompts_are_spread_over_the_prompt_set(self):
        prompts = [f"subject {i // 2}, take {i % 2}" for i in range(24)]
        assert probe_prompts(prompts) == [prompts[i] for i in range(0, 24, 24 // PROBE_PROMPTS)]
        assert len(probe_prompts(prompts)) == PROBE_PROMPTS
        assert probe_prompts(prompts[:3]) == prompts[:3]


@pytest.mark.django_db
class TestDefaults:
    def test_a_new_run_proposes_the_newest_yardstick_of_the_active_model(
            self, media, client):
        from training.runs.selectors import run_defaults

        client.force_login(curator_create("boss", staff=True, superuser=True))
        add = reverse("admin:training_trainingrun_add")
        world = lab_world(count=WORLD_RENDERS)
        assert "yardstick" not in run_defaults()  # none trained yet: no probe proposed
        form = client.get(add).context["adminform"].form
        assert form.initial.get("probe_every", 0) == 0
        yardsticks = []
        for _ in range(2):
            job = reward_services.reward_model_yardstick_create(
                reward_model=world.reward_model, queue=False)
            yardsticks.append(job_run_here(kind="reward_model", pk=job.pk))
        reward_services.reward_model_yardstick_create(reward_model=world.reward_model,
                                                      queue=False)  # queued: not chosen
        assert run_defaults()["yardstick"] == yardsticks[-1].pk
        form = client.get(add).context["adminform"].form
        assert form.initial["yardstick"] == yardsticks[-1].pk
        assert form.initial["probe_every"] == PROBE_EVERY
        # A yardstick of another model is not proposed: the judge would share its data.
        reward_services.reward_model_activate(reward_model=yardsticks[0], score=False)
        assert "yardstick" not in run_defaults()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
class TestOnTheTrainWorker:
    def test_a_run_probes_at_step_0_and_each_step_and_a_resume_stores_no_probe_twice(
            self, media, settings, test_policy, client):
        world, yardstick = yardstick_world()
        proc, generator = train_worker_start(media, settings)
        try:
            run = services.run_launch(run=make_run(
                test_policy, max_steps=2, save_steps=1, probe_every=1, yardstick=yardstick,
                snapshot=world.snapshot))
            wait_for(lambda: fresh(run).is_finished, timeout=400, worker=proc)
            run = fresh(run)
            assert run.status == Status.DONE, run.error
            assert not [n for n in run.progress["notices"] if "probe" in n]
            # The yardstick scored each step's rollouts too, as it scores the probe.
            for row in TrainingStep.objects.filter(run=run):
                assert 0.0 <= row.yardstick_mean <= 1.0

            probes = list(Probe.objects.filter(run=run))
            assert [p.step for p in probes] == [0, 1, 2]
            for probe in probes:
                assert {"generate", "render", "score", "store", "total"} <= set(probe.times)
            rows = probe_rows(run)
            plan = run.launched_config["probe"]
            once = [(i, j, prompt, seed) for i, (prompt, seed)
                    in enumerate(zip(plan["prompts"], plan["seeds"], strict=True))
                    for j in range(plan["samples"])]
            # The same prompts at the same seeds at every probe.
            assert len(once) == 3 * PROBE_SAMPLES  # three prompts in the test's set
            assert rows == [(step, *row) for step in (0, 1, 2) for row in once]
            samples = list(ProbeSample.objects.filter(probe__run=run).select_related(
                "render", "sketch"))
            for sample in samples:
                status = sample.render.status
                if status == Render.Status.UNAVAILABLE:
                    assert sample.score is None
                elif status == Render.Status.REJECTED:
                    assert sample.score == 0.0
                else:
                    assert 0.0 < sample.score < 1.0
                assert 1 <= sample.tokens <= 48
                assert sample.sketch.origin == Sketch.Origin.ROLLOUT
                assert sample.sketch.meta["probe"] is True
                assert sample.sketch.meta["step"] == sample.probe.step

            # The run page charts the probe and strips each prompt's renders.
            client.force_login(curator_create("boss", staff=True))
            page = client.get(reverse("training:run", args=[run.pk])).content.decode()
            assert 'aria-label="Probe"' in page and "1. a red barn" in page
            first, last = (ProbeSample.objects.get(probe__run=run, probe__step=step,
                                                   prompt_index=0, index=0)
                           for step in (0, 2))
            for sample in (first, last):
                assert reverse("sketches:render_detail", args=[sample.render_id]) in page

            # Resumed from the checkpoint at step 1: the probe at step 2 is taken again,
            # the earlier ones are kept, none is stored twice.
            before = {p.step: p.pk for p in probes}
            codes = rollout_codes(run)
            TrainingRun.objects.filter(pk=run.pk).update(status=Status.FAILED,
                                                         checkpoint_step=1)
            services.run_resume(run=fresh(run))
            wait_for(lambda: fresh(run).is_finished, timeout=400, worker=proc)
        finally:
            worker_stop(generator)
        run = fresh(run)
        assert run.status == Status.DONE, run.error
        assert run.progress["resumed_from"] == 1
        after = {p.step: p.pk for p in Probe.objects.filter(run=run)}
        assert sorted(after) == [0, 1, 2]
        assert (after[0], after[1]) == (before[0], before[1]) and after[2] != before[2]
        assert probe_rows(run) == rows
        probe_sketches = Sketch.objects.filter(meta__probe=True)
        # Three probes of 3 prompts x PROBE_SAMPLES: those of the discarded one went with it.
        assert probe_sketches.count() == 3 * 3 * PROBE_SAMPLES
        assert steps_of(run) == [1, 2]
        # And the resume trained step 2 as before.
        assert rollout_codes(run) == codes

    def test_a_probe_leaves_trainings_random_numbers_as_they_were(
            self, media, test_policy):
        """The same run with and without a probe writes the same rollouts: were the
        probe to draw from the global generator, every later sample would change."""
        world, yardstick = yardstick_world()
        probed, plain = (services.run_launch(run=make_run(
            test_policy, max_steps=2, snapshot=world.snapshot, yardstick=yardstick,
            probe_every=every)) for every in (1, 0))
        for run in (probed, plain):
            assert job_run_here(kind="run", pk=run.pk).status == Status.DONE, fresh(run).error
        assert Probe.objects.filter(run=probed).count() == 3
        assert not Probe.objects.filter(run=plain).exists()
        assert rollout_codes(probed) == rollout_codes(plain) and len(rollout_codes(plain)) == 4


@pytest.mark.django_db
class TestScores:
    def test_a_picture_scores_its_win_probability_a_rejected_sketch_0_an_unavailable_none(
            self, media, browser_pool, test_policy):
        import torch

        from sketches.rendering import OK, UNAVAILABLE, RenderOutcome
        from training.policy.chat import assistant_text
        from training.reward.judges import Picture
        from training.reward.judges.local import LocalRewardModelJudge
        from training.runs.probe.samples import ProbePlan, Prober
        from training.sampling.renderers import ProcessRenderer

        world, yardstick = yardstick_world()
        run = services.run_launch(run=make_run(test_policy, probe_every=1, yardstick=yardstick,
                                               snapshot=world.snapshot))
        renderer = ProcessRenderer(browser_pool)
        prober = Prober(run_id=run.pk, plan=ProbePlan.from_launched(run.launched_config),
                        renderer=renderer)
        rendered = renderer([assistant_text(read_sketch("good/lines.js")),
                             "no sketch in this reply"], [0, 0], ["a", "b"])
        outcomes = [*rendered.outcomes, RenderOutcome(UNAVAILABLE, [])]
        assert outcomes[0].status == OK
        threads = torch.get_num_threads()
        torch.set_num_threads(2)
        try:
            scores = prober.yardstick.scores(outcomes)
            assert torch.get_num_threads() == 2  # as training had it (the judge sets 1)
        finally:
            torch.set_num_threads(threads)
        references = [Picture.stored(m.png) for m in world.snapshot.members.all()]
        against = LocalRewardModelJudge(reward_model=yardstick).compare(
            [(Picture(data=outcomes[0].png), r) for r in references], [""] * len(references))
        assert scores == [pytest.approx(sum(against) / len(against)), 0.0, None]
        assert 0 < scores[0] < 1


@pytest.mark.django_db
class TestPages:
    def run_with_probes(self, tmp_path, steps: tuple[int, ...]) -> TrainingRun:
        """A launched run's rows as the worker stores them: a probe per step of
        two prompts x one sample, each with a toy render, scored step / 10."""
        run = make_run(tmp_path, status=Status.DONE, probe_every=5)
        prompts = ["a red barn", "a blue lake"]
        TrainingRun.objects.filter(pk=run.pk).update(launched_config={"probe": {
            "every": 5, "yardstick": {"id": 1, "version": 4}, "judge_reward_model": 3,
            "prompts": prompts, "samples": 1, "seeds": [0, 1], "references": []}})
        rng = random.Random(0)
        for step in steps:
            probe = Probe.objects.create(run=run, step=step, times={"total": 1.0})
            for i, prompt in enumerate(prompts):
                render = toy_render(grade="love", rng=rng, index=1000 * step + i, seed=i)
                ProbeSample.objects.create(probe=probe, prompt_index=i, index=0, prompt=prompt,
                                           sketch=render.sketch, render=render,
                                           score=None if i else step / 10, tokens=9)
        return fresh(run)

    def test_the_run_page_charts_the_probe_and_strips_first_and_last(self, staff_client, media,
                                                                     tmp_path, client):
        run = self.run_with_probes(tmp_path, steps=(0, 5, 10))
        page = client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert "yardstick v4 (trained disjoint from v3, the judge's reward model)" in page
        # The mean of the samples with a score (prompt 2's have none), and each prompt's.
        assert "mean 1</text>" in page and "1. a red barn 1</text>" in page
        strip = page[page.index("<h3>1. a red barn</h3>"):page.index("<h3>2. a blue lake</h3>")]
        ends = strip[:strip.index("<details>")]
        assert ends.index("step 0") < ends.index("step 10") and "step 5" not in ends
        assert "0.00" in ends and "1.00" in ends
        assert "3 probes across the run" in strip
        assert "no score" in page[page.index("<h3>2. a blue lake</h3>"):]

    def test_the_run_page_gives_each_probe_its_standard_error(self, staff_client, media,
                                                               tmp_path, client):
        run = self.run_with_probes(tmp_path, steps=(0, 5))
        probe = run.probes.get(step=5)
        # Two more scored samples at step 5: 0.5, 0.3 and 0.7 have mean 0.5 and
        # sample standard deviation 0.2, so a standard error of 0.2 / sqrt(3).
        first = probe.samples.get(prompt_index=0)
        for index, score in ((1, 0.3), (2, 0.7)):
            ProbeSample.objects.create(probe=probe, prompt_index=0, index=index,
                                       prompt=first.prompt, score=score)
        rows = {row.step: row for row in probe_means(run)}
        assert (rows[5].scored, round(rows[5].mean, 6)) == (3, 0.5)
        assert rows[5].se == pytest.approx(0.2 / 3 ** 0.5)
        assert rows[0].se is None and rows[0].scored == 1  # one scored sample: no error
        # Of the samples the gate passed alone: the two added have no render.
        passed = {row.step: row for row in probe_means(run, passed_only=True)}
        assert (passed[5].scored, passed[5].mean) == (1, 0.5)
        Render.objects.filter(pk=first.render_id).update(status=Render.Status.REJECTED)
        after = probe_means(run, passed_only=True)[1]
        assert (after.step, after.mean, after.scored) == (5, None, 0)
        page = client.get(reverse("training:run", args=[run.pk])).content.decode()
        table = page[page.index('<table class="probe-means">'):]
        table = table[:table.index("</table>")]
        assert "<td>5</td><td>0.500</td><td>± 0.115</td><td>3</td>" in table
        assert "<td>0</td><td>0.000</td><td>–</td><td>1</td>" in table

    def test_a_run_launched_with_a_probe_says_when_none_was_taken_yet(self, staff_client, media,
                                                                      tmp_path, client):
        run = self.run_with_probes(tmp_path, steps=())
        page = client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert "No probe taken yet" in page

    def test_the_compare_page_has_the_probe_curve(self, staff_client, media, tmp_path, client):
        run = self.run_with_probes(tmp_path, steps=(0, 5))
        other = make_run(tmp_path, status=Status.DONE)
        page = client.get(reverse("training:runs_compare"),
                          {"run": [run.pk, other.pk]}).content.decode()
        assert 'aria-label="Probe: mean yardstick score"' in page
        assert f"tiny (#{run.pk}) 0.5</text>" in page
        assert "<th>Probe every</th>" in page
