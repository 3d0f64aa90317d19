"""The training-run pages and admin: staff only; a run's page shows progress
with ETA, curves per step, the rubric's diagnostics on the run's own
rollouts and a gallery per step with the best and worst of each group, and
polls itself only while the run is live; the admin starts a new run from the
presets, freezes a launched run's settings, and its actions and buttons call
the run services (for staff allowed to change runs only).

Runs, steps and rollouts are built as rows (with real renders and PNGs), the
way the train worker stores them: these tests are about what the pages make
of them, not about training."""
from __future__ import annotations

from datetime import timedelta
from html import unescape

import numpy as np
import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from pool.models import PoolSnapshot
from tests.rating_data import curator_create
from tests.run_data import GENERATIONS, GROUPS, run_create, steps_create
from training.models import (
    Judge,
    PolicyBuild,
    PromptSet,
    Rollout,
    Rubric,
    SystemPrompt,
    TrainingRun,
    TrainingStep,
)
from training.policy.services import build_folder
from training.runs.services import launched_config, run_actions

RUNS = reverse("training:runs")


def run_urls(run: TrainingRun) -> list[tuple[str, str]]:
    return [("get", RUNS), ("get", reverse("training:run", args=[run.pk])),
            ("post", reverse("training:run_cancel", args=[run.pk])),
            ("post", reverse("training:run_resume", args=[run.pk]))]


@pytest.fixture
def staff(client):
    boss = curator_create("boss", staff=True)
    boss.is_superuser = True
    boss.save()
    client.force_login(boss)
    return client


@pytest.fixture
def trained(media):
    """A running run halfway through, with two steps stored and a fresh heartbeat."""
    run = run_create(progress={"step": 2, "max_steps": 4, "eta_s": 200, "last_step_s": 100},
                     heartbeat=timezone.now(), worker="train@test", started=timezone.now(),
                     checkpoint_step=2)
    steps_create(run)
    return run


def page(client, run: TrainingRun, **params) -> str:
    response = client.get(reverse("training:run", args=[run.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
class TestAccess:
    def test_anonymous_visitors_go_to_the_login_page(self, client):
        run = run_create(status="draft")
        for method, url in run_urls(run):
            response = getattr(client, method)(url)
            assert response.status_code == 302 and "/login/" in response["Location"], url

    def test_curators_are_refused(self, client):
        run = run_create(status="draft")
        client.force_login(curator_create("alice"))
        for method, url in run_urls(run):
            assert getattr(client, method)(url).status_code == 403, url
        admin_page = client.get(reverse("admin:training_trainingrun_changelist"))
        assert admin_page.status_code == 302 and "/admin/login/" in admin_page["Location"]

    def test_staff_without_the_change_permission_cannot_cancel_or_resume(self, client):
        run = run_create(status="running")
        client.force_login(curator_create("watcher", staff=True))
        page = client.get(reverse("training:run", args=[run.pk]))
        assert page.status_code == 200 and page.context["run"] == run
        assert not page.context["can_change"]  # shown, with no buttons to act
        for name in ("training:run_cancel", "training:run_resume"):
            assert client.post(reverse(name, args=[run.pk])).status_code == 403
        run.refresh_from_db()
        assert not run.cancel_requested

    def test_the_nav_and_home_page_link_staff_to_the_runs(self, staff):
        home = staff.get(reverse("home")).content.decode()
        assert f'href="{RUNS}"' in home
        assert reverse("admin:training_trainingrun_add") in home
        assert "not built yet" not in home


@pytest.mark.django_db
class TestRunPage:
    def test_progress_eta_and_the_settings(self, staff, trained):
        text = page(staff, trained)
        assert "step <strong>2</strong> of 4 (50%)" in text
        assert "about <strong>3 min 20 s</strong> left" in text
        assert "the last step took 1 min 40 s" in text
        assert '<progress max="4" value="2">' in text
        assert "4 generations × 2 prompts per step" in text
        assert "built-in tiny policy" in text and "allow-list (rev. 2)" in text
        assert "Stalled" not in text

    def test_charts_per_step_and_the_latest_steps_table(self, staff, trained):
        text = page(staff, trained)
        # Five curves per step, the hacking watch's, and the diagnostics' three charts.
        assert text.count("<svg") == 9
        for title in ("Reward per step", "Gate and unknown methods", "Completion tokens",
                      "Step time split", "Trainer metrics"):
            assert f'aria-label="{title}"' in text
        assert "unknown methods 0.125" in text  # the curve's end label: step 2's rate
        assert "<td>12%</td>" in text  # and in the table (12.5% rounded)

    def test_the_table_shows_who_rendered_each_step_and_the_render_share(self, staff,
                                                                         trained):
        TrainingStep.objects.filter(run=trained, step=2).update(
            render_workers={"render-b@host2": 3, "render-a@host1": 5})
        text = page(staff, trained)
        assert text.count("<td>31%</td>") == 2  # render 2.0 s of 6.5 s, both steps
        rows = text.split('class="run-render-workers">')[1:]
        # Newest first: step 2 by two workers, step 1 stored before it was recorded.
        assert [row.split("</td>")[0] for row in rows] == [
            "render-a@host1 × 5, render-b@host2 × 3", "–"]

    def test_diagnostics_of_the_rubric_on_the_runs_rollouts(self, staff, trained):
        text = page(staff, trained)
        assert "Diagnostics of the rubric on this run" in text
        assert "<strong>16</strong> rollouts" in text and "<strong>4</strong> groups" in text
        assert "gate is dead" in text and "length is dead" in text
        assert "25% of groups have identical totals" in text

    def test_the_gallery_shows_the_latest_step_best_and_worst_marked(self, staff, trained):
        text = page(staff, trained)
        assert "Rollouts of step 2" in text
        assert text.count('class="run-mark run-mark-best"') == 1  # the flat group has none
        assert text.count('class="run-mark run-mark-worst"') == 1
        assert "Every rollout got the same total" in text
        assert "<code>splatter</code>" in text
        best = Rollout.objects.get(run=trained, step=2, group=0, index=2)  # pairwise 1.0
        best_at = text.index(reverse("sketches:render_png", args=[best.render_id]))
        assert "run-mark-best" in text[text.rindex("<figure", 0, best_at):best_at]
        assert reverse("sketches:edit", args=[best.sketch_id]) in text

    def test_the_gallery_shows_each_rollouts_gate_verdict_violations_and_errors(self, staff,
                                                                                 trained):
        rejected = Rollout.objects.get(run=trained, step=2, group=1, index=3).render
        long_error = "TypeError: brush.splatter is not a function " + "at draw " * 40
        rejected.status = "rejected"
        rejected.violations = ["no_brush_painting", "runtime_error"]
        rejected.violation_details = {"no_brush_painting": "no p5.brush call left paint",
                                      "runtime_error": long_error}
        rejected.js_errors = [long_error]
        rejected.save()
        text = page(staff, trained)
        figure = text[text.rindex("<figure", 0, text.index(
            reverse("sketches:render_png", args=[rejected.pk]))):]
        figure = figure[:figure.index("</figure>")]
        assert '<span class="status status-rejected">rejected</span>' in figure
        assert '<code title="no p5.brush call left paint">no_brush_painting</code>' in figure
        assert "1 JavaScript error</span>" in figure
        assert f"<li><code>runtime_error</code>: {long_error}</li>" in figure  # in full
        assert text.count("passed the gate") == GROUPS * GENERATIONS - 1

    def test_the_step_selector_shows_an_earlier_step_and_keeps_it_while_polling(self, staff,
                                                                                trained):
        text = page(staff, trained, step=1)
        assert "Rollouts of step 1" in text and '<option value="1" selected>' in text
        assert f'hx-get="{reverse("training:run", args=[trained.pk])}?step=1"' in text
        assert "Every rollout got the same total" not in text
        assert "No rollouts stored for step 9" in page(staff, trained, step=9)

    def test_polling_while_live_and_none_once_finished(self, staff, trained):
        url = reverse("training:run", args=[trained.pk])
        fragment = staff.get(url, headers={"HX-Request": "true"}).content.decode()
        assert 'id="run-body"' in fragment
        assert 'hx-trigger="every 3s"' in fragment and "<h1>" not in fragment
        TrainingRun.objects.filter(pk=trained.pk).update(status="done",
                                                         finished=timezone.now())
        done = staff.get(url, headers={"HX-Request": "true"}).content.decode()
        assert 'id="run-body"' in done and "hx-trigger" not in done
        assert "(100%)" in done and "left</strong>" not in done

    def test_a_stalled_run_offers_resume(self, staff, trained):
        TrainingRun.objects.filter(pk=trained.pk).update(
            heartbeat=timezone.now() - timedelta(days=1), launched_config=launched_config(trained))
        text = page(staff, trained)
        assert "Stalled" in text
        assert reverse("training:run_resume", args=[trained.pk]) in text
        assert reverse("training:run_cancel", args=[trained.pk]) in text

    def test_a_draft_has_no_curves_yet(self, staff):
        run = run_create(status="draft")
        text = page(staff, run)
        assert "Not launched yet" in text and "<svg" not in text and "hx-trigger" in text

    def test_the_runs_list(self, staff, trained):
        text = staff.get(RUNS).content.decode()
        assert reverse("training:run", args=[trained.pk]) in text
        last = TrainingStep.objects.get(run=trained, step=2).reward_mean
        assert f"{last:.3f}" in text and "2/4" in text
        assert reverse("admin:training_trainingrun_add") in text

    def test_the_runs_list_follows_the_built_in_policy_build(self, staff, settings, tmp_path):
        settings.PAINTRL_POLICY_DIR = str(tmp_path / "builtin")
        assert "Not built yet" in staff.get(RUNS).content.decode()
        build = PolicyBuild.objects.create(
            out=build_folder(tmp_path / "builtin"), status="running", started=timezone.now(),
            heartbeat=timezone.now(), worker="trainhost:42:ab",
            progress={"message": "training: step 300, loss 1.900", "done": 0.4,
                      "sft_elapsed_s": 240})
        text = staff.get(RUNS).content.decode()
        assert "Being built on trainhost" in text and "step 300, loss 1.900" in text
        assert 'value="40"' in text and 'hx-trigger="every 5s"' in text
        panel = staff.get(RUNS, headers={"HX-Request": "true", "HX-Target": "policy-state"})
        assert panel.content.decode().lstrip().startswith('<section class="card policy-state"')
        (tmp_path / "builtin").mkdir()
        (tmp_path / "builtin" / "config.json").write_text("{}")
        PolicyBuild.objects.filter(pk=build.pk).update(status="done")
        text = staff.get(RUNS).content.decode()
        assert "Ready in" in text and "hx-trigger" not in text.split("policy-state")[1][:200]

    def test_a_failed_build_says_why(self, staff, settings, tmp_path):
        settings.PAINTRL_POLICY_DIR = str(tmp_path / "builtin")
        PolicyBuild.objects.create(out=build_folder(tmp_path / "builtin"), status="failed",
                                   error="OSError: No space left on device",
                                   progress={"message": "tokenizer: fitting"})
        text = staff.get(RUNS).content.decode()
        assert "failed: OSError: No space left on device" in text and "Not built yet" in text


# The hacking watch's run: six steps of four rollouts in which more and more
# renders come back unavailable (so without a total); every render with a
# verdict passes the gate, and step 2's last rollout timed out.
UNAVAILABLE_PER_STEP = (0, 0, 0, 1, 2, 3)


def watch_rollouts_create(run: TrainingRun, unavailable_per_step=UNAVAILABLE_PER_STEP) -> None:
    from sketches.models import Render, Sketch

    rows = []
    for step, unavailable in enumerate(unavailable_per_step, start=1):
        for index in range(GENERATIONS):
            status, violations = ("unavailable", []) if index < unavailable else ("ok", [])
            if step == 2 and index == GENERATIONS - 1:
                status, violations = "rejected", ["timeout"]
            sketch = Sketch.objects.create(prompt="a hibiscus", code=f"// {step} {index}\n")
            render = Render.objects.create(sketch=sketch, status=status, violations=violations)
            rows.append(Rollout(run=run, step=step, group=0, index=index, prompt="a hibiscus",
                                sketch=sketch, render=render, values={},
                                total=None if status == "unavailable" else 0.5))
    Rollout.objects.bulk_create(rows)


@pytest.mark.django_db
class TestHackingWatch:
    def test_shares_per_step_from_the_stored_rollouts(self):
        from training.runs.watch import watch_steps

        run = run_create()
        watch_rollouts_create(run)
        steps = watch_steps(run)
        assert [row["step"] for row in steps] == [1, 2, 3, 4, 5, 6]
        assert [row["rollouts"] for row in steps] == [4] * 6
        assert [row["judged"] for row in steps] == [4, 4, 4, 3, 2, 1]
        shares = {key: [row["shares"][key] for row in steps] for key in steps[0]["shares"]}
        assert shares == {
            "gate_pass": [1.0, 0.75, 1.0, 1.0, 1.0, 1.0],
            "unknown_method": [0.0] * 6,
            "unavailable": [0.0, 0.0, 0.0, 0.25, 0.5, 0.75],
            "no_total": [0.0, 0.0, 0.0, 0.25, 0.5, 0.75],
            "timeout": [0.0, 0.25, 0.0, 0.0, 0.0, 0.0],
            "crashed": [0.0] * 6,
        }

    def test_rising_unavailable_renders_and_missing_totals_warn(self):
        from training.runs.watch import watch_steps, watch_warnings

        run = run_create()
        watch_rollouts_create(run)
        warnings = {w.measure.key: w.text for w in watch_warnings(watch_steps(run))}
        assert set(warnings) == {"unavailable", "no_total"}
        assert warnings["unavailable"].startswith(
            "Unavailable renders rose from 0% (steps 1–3) to 50% (steps 4–6): ")
        assert warnings["no_total"].startswith("No total rose from 0% (steps 1–3) to 50%")

    def test_the_trend_rule(self):
        from training.runs.watch import WINDOW, watch_warnings

        def rows(per_step=100, **series):
            size = len(next(iter(series.values())))
            keys = ("gate_pass", "unknown_method", "unavailable", "no_total", "timeout",
                    "crashed")
            return [{"step": i + 1, "rollouts": per_step, "judged": per_step,
                     "shares": {k: series.get(k, [0.0] * size)[i] for k in keys}}
                    for i in range(size)]

        def warned(per_step=100, **series):
            return [w.measure.key for w in watch_warnings(rows(per_step, **series))]

        ten = 2 * WINDOW
        # First 5 steps against the last 5: a rise of 0.10 warns, 0.09 does not.
        assert warned(unknown_method=[0.0] * WINDOW + [0.10] * WINDOW) == ["unknown_method"]
        assert warned(unknown_method=[0.0] * WINDOW + [0.09] * WINDOW) == []
        # The gate warns when it falls, not when it climbs.
        assert warned(gate_pass=[0.9] * WINDOW + [0.6] * WINDOW) == ["gate_pass"]
        assert warned(gate_pass=[0.6] * WINDOW + [0.9] * WINDOW) == []
        # A steady 30% of unavailable renders warns on its own (above 25%); 20% does not.
        assert warned(unavailable=[0.3] * ten) == ["unavailable"]
        assert warned(unavailable=[0.2] * ten) == []
        # A share with no value on a step (nothing judged) is skipped, not read as 0.
        assert warned(timeout=[None, 0.5, 0.5, 0.5]) == []
        # One step is no trend.
        assert warned(crashed=[1.0]) == []

    def test_a_move_chance_explains_does_not_warn(self):
        """A 3-step run of 8 rollouts a step at 38 %, 50 %, 12 % gate pass
        compares one step with one: 3 of 8 against 1 of 8 is what chance gives,
        so no warning; the same fall held over ten steps is more than chance."""
        from training.runs.watch import WINDOW, watch_warnings

        def warned(gate_pass, per_step):
            rows = [{"step": i + 1, "rollouts": per_step, "judged": per_step,
                     "shares": {"gate_pass": share, "unknown_method": 0.0, "unavailable": 0.0,
                                "no_total": 0.0, "timeout": 0.0, "crashed": 0.0}}
                    for i, share in enumerate(gate_pass)]
            return [w.measure.key for w in watch_warnings(rows)]

        assert warned([0.375, 0.5, 0.125], per_step=8) == []
        assert warned([0.375] * WINDOW + [0.125] * WINDOW, per_step=8) == ["gate_pass"]
        # The same shares over 100 rollouts a step are no longer chance.
        assert warned([0.375, 0.5, 0.125], per_step=100) == ["gate_pass"]

    def test_the_page_shows_the_shares_and_the_warning(self, media, staff):
        run = run_create()
        watch_rollouts_create(run)
        text = page(staff, run)
        section = text[text.index('id="hacking-watch"'):]
        section = section[:section.index("</section>")]
        assert "<h2>Hacking watch</h2>" in section
        assert 'role="alert"' in section
        assert ("<strong>Warning:</strong> Unavailable renders rose from 0% (steps 1–3) to "
                "50% (steps 4–6)") in section
        assert "<strong>Warning:</strong> No total rose from 0% (steps 1–3) to 50%" in section
        assert "Gate pass" in section and "Timeouts" in section
        # Step 6's row, newest first: 4 rollouts, gate 100%, unknown 0%, unavailable 75%,
        # no total 75%, timeouts 0%, crashed 0%.
        assert ("<tr><td>6</td><td>4</td><td>100%</td><td>0%</td><td>75%</td><td>75%</td>"
                "<td>0%</td><td>0%</td></tr>") in section
        assert section.index("<td>6</td>") < section.index("<td>1</td>")
        assert 'aria-label="Hacking watch"' in section
        assert "unavailable renders 0.75" in section  # the curve's end label

    def test_a_healthy_run_has_no_warning(self, media, staff):
        run = run_create()
        watch_rollouts_create(run, unavailable_per_step=(0, 0, 0, 0))
        text = page(staff, run)
        assert "No share has gone the wrong way by more than chance." in text
        assert "<strong>Warning:</strong>" not in text


@pytest.mark.django_db
class TestRunAdmin:
    def test_a_new_run_starts_from_the_presets(self, staff):
        PoolSnapshot.objects.create(name="older", rule={}, counts={})
        newest = PoolSnapshot.objects.create(name="newest", rule={}, counts={})
        response = staff.get(reverse("admin:training_trainingrun_add"))
        assert response.status_code == 200
        initial = response.context["adminform"].form.initial
        assert initial["rubric"] == Rubric.objects.get(name="v2", preset=True).pk
        # The newest preset revision: rev. 2 paints in draw() and lists every
        # method the painter calls.
        assert initial["system_prompt"] == SystemPrompt.objects.get(name="allow-list",
                                                                    version=2).pk
        assert initial["prompt_set"] == PromptSet.objects.get(name="painter subjects").pk
        local = Judge.objects.get(name="local").pk
        assert initial["judge"] == initial["scorer"] == local
        assert initial["snapshot"] == newest.pk

    def test_settings_are_editable_in_a_draft_and_read_only_after_launch(self, staff):
        draft = run_create(status="draft")
        url = reverse("admin:training_trainingrun_change", args=[draft.pk])
        page_ = staff.get(url)
        assert "learning_rate" in page_.context["adminform"].form.fields
        text = page_.content.decode()
        assert reverse("admin:training_trainingrun_launch", args=[draft.pk]) in text
        assert reverse("admin:training_trainingrun_cancel", args=[draft.pk]) not in text

        running = run_create(status="running", name="live")
        url = reverse("admin:training_trainingrun_change", args=[running.pk])
        page_ = staff.get(url)
        assert "learning_rate" not in page_.context["adminform"].form.fields
        text = page_.content.decode()
        assert "Launched runs are read-only" in text and 'name="_save"' not in text
        assert reverse("admin:training_trainingrun_cancel", args=[running.pk]) in text
        assert reverse("admin:training_trainingrun_clone", args=[running.pk]) in text
        assert reverse("admin:training_trainingrun_launch", args=[running.pk]) not in text
        refused = staff.post(url, {"name": "renamed", "learning_rate": 1.0})
        assert refused.status_code == 403
        delete = reverse("admin:training_trainingrun_delete", args=[running.pk])
        assert staff.post(delete, {"post": "yes"}).status_code == 403  # cancel it first
        running.refresh_from_db()
        assert running.name == "live"

    def test_the_list_shows_status_progress_and_last_reward(self, staff, trained):
        text = staff.get(reverse("admin:training_trainingrun_changelist")).content.decode()
        assert '<progress max="100" value="50"></progress> 50%' in text
        last = TrainingStep.objects.get(run=trained, step=2).reward_mean
        assert f"{last:.3f}" in text and "2/4" in text


def rewards_store(run: TrainingRun, rewards: list[float], tokens: float = 100) -> None:
    TrainingStep.objects.bulk_create(
        TrainingStep(run=run, step=i, reward_mean=reward, gate_pass=0.25,
                     completion_tokens={"mean": tokens, "min": 1, "max": 200})
        for i, reward in enumerate(rewards, start=1))


@pytest.mark.django_db
class TestCompare:
    COMPARE = reverse("training:runs_compare")

    def test_the_runs_list_ticks_runs_to_compare(self, staff, trained):
        html = staff.get(RUNS).content.decode()
        assert f'action="{self.COMPARE}"' in html
        assert f'name="run" value="{trained.pk}"' in html

    def test_two_runs_on_one_chart_with_what_differs_and_how_each_moved(self, staff):
        rising = run_create(status="done", name="rising", learning_rate=3e-4)
        flat = run_create(status="done", name="flat", learning_rate=1e-4)
        rewards_store(rising, [0.1, 0.3, 0.2, 0.4, 0.3, 0.5])
        rewards_store(flat, [0.3, 0.3, 0.3], tokens=180)
        response = staff.get(self.COMPARE, {"run": [rising.pk, flat.pk]})
        html = response.content.decode()
        assert response.status_code == 200
        # One line a run on each chart, labelled with the run and its last value.
        assert html.count(f"rising (#{rising.pk}) 0.5") == 1
        assert html.count(f"flat (#{flat.pk}) 0.3") == 1
        assert f"flat (#{flat.pk}) 180" in html  # the completion-length chart
        # What differs is a column; what is shared is said once.
        assert "<th>Learning rate</th>" in html
        assert "<td>0.0003</td>" in html and "<td>0.0001</td>" in html
        assert "The same in every run: rubric v2" in html
        # First third 0.2, last third 0.4; slope as numpy's least squares gives it.
        slope = float(np.polyfit(range(6), [0.1, 0.3, 0.2, 0.4, 0.3, 0.5], 1)[0])
        assert "0.200 → 0.400</td>" in html
        assert f"<td>{slope:.4f} (" in html
        assert "0.300 → 0.300</td>" in html and "<td>0.0000 (–)</td>" in html  # no spread, no t

    def test_a_run_with_too_few_steps_says_so(self, staff):
        runs = [run_create(status="done", name=name) for name in ("a", "b")]
        rewards_store(runs[0], [0.1, 0.2])
        html = staff.get(self.COMPARE, {"run": [r.pk for r in runs]}).content.decode()
        assert html.count("fewer than 3 steps with a reward") == 2

    @pytest.mark.parametrize("ids, expected", [
        (["1"], "choose at least two runs to compare"),
        (["1", "x"], "'x' is not a run id"),
        (["999998", "999999"], "no run 999998, 999999"),
        ([str(i) for i in range(1, 10)], "compare at most 7 runs at once")])
    def test_a_choice_that_cannot_be_compared_goes_back_to_the_list_saying_why(
            self, staff, ids, expected):
        response = staff.get(self.COMPARE, {"run": ids}, follow=True)
        assert response.redirect_chain[-1][0] == RUNS
        assert expected in unescape(response.content.decode())

    def test_the_admin_action_opens_the_comparison(self, staff):
        runs = [run_create(status="done", name=name) for name in ("a", "b")]
        response = staff.post(reverse("admin:training_trainingrun_changelist"),
                              {"action": "compare_selected",
                               "_selected_action": [r.pk for r in runs]})
        assert response["Location"] == f"{self.COMPARE}?run={runs[0].pk}&run={runs[1].pk}"

    def test_curators_are_refused(self, client):
        client.force_login(curator_create("cora"))
        assert client.get(self.COMPARE, {"run": [1, 2]}).status_code == 403


@pytest.mark.django_db
class TestRunAdminActions:
    """The actions and buttons call training.runs.services (the engine's contract)."""

    def act(self, client, action: str, *runs: TrainingRun):
        return client.post(reverse("admin:training_trainingrun_changelist"),
                           {"action": action, "_selected_action": [r.pk for r in runs]},
                           follow=True)

    def test_clone_makes_a_draft_copy(self, staff):
        run = run_create(status="done", learning_rate=3e-5)
        response = staff.post(reverse("admin:training_trainingrun_clone", args=[run.pk]))
        clone = TrainingRun.objects.exclude(pk=run.pk).get()
        assert clone.parent == run and clone.status == "draft" and clone.learning_rate == 3e-5
        assert response["Location"] == reverse("admin:training_trainingrun_change",
                                               args=[clone.pk])
        self.act(staff, "clone_selected", run)
        assert TrainingRun.objects.filter(parent=run).count() == 2

    def test_clone_with_another_rubric_changes_the_rubric_alone(self, staff):
        run = run_create(status="done", seed=7, learning_rate=3e-5)
        v1 = Rubric.objects.get(name="v1")
        change = staff.get(reverse("admin:training_trainingrun_change", args=[run.pk]))
        assert f'<option value="{v1.pk}">{v1}</option>' in change.content.decode()
        staff.post(reverse("admin:training_trainingrun_clone", args=[run.pk]), {"rubric": v1.pk})
        clone = TrainingRun.objects.get(parent=run)
        assert clone.rubric == v1 and clone.name == f"hibiscus run (with rubric {v1})"
        same = ("seed", "learning_rate", "prompt_set_id", "snapshot_id", "judge_id",
                "scorer_id", "num_generations", "prompts_per_step", "max_steps")
        assert [getattr(clone, f) for f in same] == [getattr(run, f) for f in same]

    def test_cancel_asks_a_running_run_to_stop(self, staff):
        run = run_create(status="running")
        response = self.act(staff, "cancel_selected", run)
        run.refresh_from_db()
        assert run.cancel_requested and response.status_code == 200

    def test_launch_queues_a_draft_and_a_refusal_is_an_error_message(
            self, staff, tmp_path, django_capture_on_commit_callbacks):
        policy = tmp_path / "policy"
        policy.mkdir()
        (policy / "config.json").write_text("{}")  # launch checks the folder, not the model
        snapshot = PoolSnapshot.objects.create(name="pool", rule={}, counts={})
        draft = run_create(status="draft", base_model=str(policy), snapshot=snapshot)
        # No reward model here: v2's preference and pairwise can never be answered, so the
        # launch is refused, saying why, until the run chooses to drop them openly.
        [message] = self.act(staff, "launch_selected", draft).context["messages"]
        assert message.level_tag == "error" and "no active reward model" in message.message
        TrainingRun.objects.filter(pk=draft.pk).update(drop_unanswerable=True)
        with django_capture_on_commit_callbacks(execute=False):
            response = staff.post(reverse("admin:training_trainingrun_launch", args=[draft.pk]))
        draft.refresh_from_db()
        assert draft.status == "queued", draft.error
        assert response["Location"] == reverse("training:run", args=[draft.pk])
        assert b"launched, queued on the train worker" in staff.get(response["Location"]).content
        refused = self.act(staff, "launch_selected", draft)  # already launched
        [message] = refused.context["messages"]
        assert message.level_tag == "error" and "not a draft" in message.message
        draft.refresh_from_db()
        assert draft.status == "queued"

    def test_resume_requeues_a_failed_run_and_refuses_a_finished_one(
            self, staff, django_capture_on_commit_callbacks):
        failed = run_create(status="failed", error="worker lost", checkpoint_step=0,
                            launched_config={"rubric": {"signals": []}})
        with django_capture_on_commit_callbacks(execute=False):
            self.act(staff, "resume_selected", failed)
        failed.refresh_from_db()
        assert failed.status == "queued"
        done = run_create(status="done", name="finished")
        refused = self.act(staff, "resume_selected", done)
        assert [m.level_tag for m in refused.context["messages"]] == ["error"]

    def test_staff_without_the_change_permission_cannot_act(self, client):
        watcher = curator_create("watcher", staff=True)
        watcher.user_permissions.add(Permission.objects.get(codename="view_trainingrun"))
        client.force_login(watcher)
        draft = run_create(status="draft")
        changelist = client.get(reverse("admin:training_trainingrun_changelist"))
        assert changelist.status_code == 200
        assert list(changelist.context["cl"].result_list) == [draft]
        for verb in ("launch", "cancel", "resume", "clone"):
            url = reverse(f"admin:training_trainingrun_{verb}", args=[draft.pk])
            assert client.post(url).status_code == 403, verb
        self.act(client, "launch_selected", draft)
        self.act(client, "clone_selected", draft)
        draft.refresh_from_db()
        assert draft.status == "draft" and TrainingRun.objects.count() == 1


@pytest.mark.django_db
class TestWhatARunMayDo:
    """training.runs.services.run_actions decides which verbs a run allows; the
    admin's buttons and the run page's offer exactly those."""

    def offered(self, client, run: TrainingRun) -> tuple[set[str], set[str]]:
        """The verbs whose forms the admin's change page and the run page hold."""
        admin_page = client.get(reverse("admin:training_trainingrun_change", args=[run.pk]))
        assert admin_page.status_code == 200
        admin_text, run_page = admin_page.content.decode(), page(client, run)
        in_admin = {verb for verb in ("launch", "cancel", "resume", "clone")
                    if reverse(f"admin:training_trainingrun_{verb}", args=[run.pk]) in admin_text}
        on_page = {verb for verb in ("cancel", "resume")
                   if reverse(f"training:run_{verb}", args=[run.pk]) in run_page}
        return in_admin, on_page

    def launched(self, status: str, **fields) -> TrainingRun:
        run = run_create(status=status, **fields)
        TrainingRun.objects.filter(pk=run.pk).update(launched_config=launched_config(run))
        return TrainingRun.objects.get(pk=run.pk)

    def test_a_draft_is_only_launched_or_cloned(self, staff):
        draft = run_create(status="draft")
        assert run_actions(draft) == {"launch", "clone"}
        assert self.offered(staff, draft) == ({"launch", "clone"}, set())

    def test_an_imported_run_is_not_offered_resume_its_checkpoints_stayed_behind(self, staff):
        cancelled = self.launched("cancelled", name="cancelled here", checkpoint_step=2)
        assert run_actions(cancelled) == {"resume", "clone"}
        assert self.offered(staff, cancelled) == ({"resume", "clone"}, {"resume"})
        imported = self.launched("cancelled", name="imported", checkpoint_step=2,
                                 progress={"step": 2, "max_steps": 4, "imported": True})
        assert run_actions(imported) == {"clone"}
        assert self.offered(staff, imported) == ({"clone"}, set())

    def test_an_imported_run_is_refused_by_the_resume_action(self, staff):
        imported = self.launched("cancelled", progress={"imported": True})
        response = staff.post(reverse("admin:training_trainingrun_changelist"),
                              {"action": "resume_selected", "_selected_action": [imported.pk]},
                              follow=True)
        [message] = response.context["messages"]
        assert message.level_tag == "error" and "imported" in message.message
        imported.refresh_from_db()
        assert imported.status == "cancelled"

    def test_a_stalled_run_is_offered_resume_and_cancel(self, staff):
        stalled = self.launched("running", heartbeat=timezone.now() - timedelta(days=1),
                                checkpoint_step=2)
        assert run_actions(stalled) == {"cancel", "resume", "clone"}
        assert self.offered(staff, stalled) == ({"cancel", "resume", "clone"},
                                                {"cancel", "resume"})
        # Its worker will never honour a cancel requested before it went silent.
        TrainingRun.objects.filter(pk=stalled.pk).update(cancel_requested=True)
        stalled.refresh_from_db()
        assert run_actions(stalled) == {"cancel", "resume", "clone"}

    def test_a_live_run_is_cancelled_once_and_not_resumed(self, staff):
        live = self.launched("running", heartbeat=timezone.now())
        assert run_actions(live) == {"cancel", "clone"}
        assert self.offered(staff, live) == ({"cancel", "clone"}, {"cancel"})
        TrainingRun.objects.filter(pk=live.pk).update(cancel_requested=True)
        live.refresh_from_db()
        assert run_actions(live) == {"clone"}
        assert self.offered(staff, live) == ({"clone"}, set())

    def test_a_finished_run_is_only_cloned(self, staff):
        done = self.launched("done")
        assert run_actions(done) == {"clone"}
        assert self.offered(staff, done) == ({"clone"}, set())
        # A cancel it does not allow is an error in the admin, as a refused resume is.
        response = staff.post(reverse("admin:training_trainingrun_changelist"),
                              {"action": "cancel_selected", "_selected_action": [done.pk]},
                              follow=True)
        [message] = response.context["messages"]
        assert message.level_tag == "error" and "already finished (done)" in message.message


@pytest.mark.django_db
class TestPromptAdmins:
    def test_prompt_sets_are_edited_one_prompt_per_line(self, staff):
        prompts = PromptSet.objects.get(name="painter subjects")
        url = reverse("admin:training_promptset_change", args=[prompts.pk])
        form = staff.get(url).context["adminform"].form
        assert form["prompts"].value() == "\n".join(prompts.prompts)
        response = staff.post(reverse("admin:training_promptset_add"), {
            "name": "two flowers", "description": "",
            "prompts": "a red poppy\n\n  a blue iris  \n"})
        assert response.status_code == 302
        assert PromptSet.objects.get(name="two flowers").prompts == ["a red poppy", "a blue iris"]
        empty = staff.post(reverse("admin:training_promptset_add"),
                           {"name": "nothing", "description": "", "prompts": "\n \n"})
        assert empty.status_code == 200 and not PromptSet.objects.filter(name="nothing").exists()

    def test_system_prompts_save_as_a_new_version(self, staff):
        preset = SystemPrompt.objects.get(name="allow-list", version=2)
        url = reverse("admin:training_systemprompt_change", args=[preset.pk])
        response = staff.post(url, {"name": "allow-list", "text": "Use only brush.line.",
                                    "_saveasnew": "Save as new"})
        assert response.status_code == 302
        edited = SystemPrompt.objects.get(name="allow-list", version=preset.version + 1)
        assert edited.text == "Use only brush.line." and not edited.preset
        preset.refresh_from_db()
        assert preset.text != edited.text
