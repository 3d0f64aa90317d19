"""The replay lab end to end: renders chosen in groups, two rubrics scored
side by side with the local judge, the diagnosis (v1's absolute judges
counted as one signal), signals the judges can never answer (adherence for
the local model, anything without a reward model, pairwise without a pool)
refused with the way out or dropped openly, cancel and resume, the pages
(staff only), and a real short worker running a replay queued from the page."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from jobs.registry import job_stale_s
from jobs.runner import job_run_here
from tests.lab_data import GROUP_SIZE, lab_world
from tests.rating_data import curator_create, renders_create
from tests.workers import wait_for
from training.lab.selection import (
    ReplaySelection,
    grouping_choose,
    renders_select,
    selection_resolve,
)
from training.lab.services import ReplayError, replay_cancel, replay_create
from training.models import Judge, Replay, ReplayItem, Rubric

LAB = reverse("training:lab")


def presets():
    return Rubric.objects.get(name="v2"), Rubric.objects.get(name="v1")


def diagnostics_of(replay: Replay, index: int) -> dict:
    return replay.results["rubrics"][index]["diagnostics"]


def by_name(diagnostics: dict) -> dict:
    return {s["name"]: s for s in diagnostics["signals"]}


@pytest.fixture
def world(media):
    return lab_world()


@pytest.mark.django_db
class TestSelection:
    def test_whole_groups_up_to_the_limit_at_most_per_group_each(self, world):
        chosen = renders_select(ReplaySelection(per_group=3, limit=9, seed=1))
        assert len(chosen) == 9
        groups = {}
        for _, label in chosen:
            groups[label] = groups.get(label, 0) + 1
        assert set(groups.values()) == {3}
        assert chosen == renders_select(ReplaySelection(per_group=3, limit=9, seed=1))
        assert chosen != renders_select(ReplaySelection(per_group=3, limit=9, seed=2))

    def test_a_training_runs_rollouts_keep_their_groups(self, world):
        from training.models import PromptSet, Rollout, SystemPrompt, TrainingRun

        local = Judge.objects.get(name="local")
        run = TrainingRun.objects.create(
            name="run", prompt_set=PromptSet.objects.get(),
            system_prompt=SystemPrompt.objects.get(version=2), rubric=presets()[0], judge=local,
            scorer=local)
        for n, render in enumerate(world.renders[:8] + [world.rejected]):
            Rollout.objects.create(run=run, step=1 + n // 4, group=(n // 2) % 2, index=n % 2,
                                   prompt=render.sketch.prompt, sketch=render.sketch,
                                   render=render)
        chosen = renders_select(ReplaySelection(run_id=run.pk))
        assert [label for _, label in chosen[:4]] == ["step 1, group 0"] * 2 + \
            ["step 1, group 1"] * 2
        assert len(chosen) == 9
        assert len(renders_select(ReplaySelection(run_id=run.pk, include_rejected=False))) == 8

    def test_filters(self, world):
        everything = renders_select(ReplaySelection(limit=1000))
        ids = {pk for pk, _ in everything}
        assert world.rejected.pk in ids and world.unavailable.pk not in ids
        without = {pk for pk, _ in renders_select(ReplaySelection(limit=1000,
                                                                  include_rejected=False))}
        assert world.rejected.pk not in without
        group_3 = renders_select(ReplaySelection(prompt_contains="group 3", limit=1000))
        assert len(group_3) == GROUP_SIZE
        assert renders_select(ReplaySelection(origin="rollout")) == []
        picked = (world.renders[5].pk, world.renders[30].pk, world.rejected.pk)
        assert {pk for pk, _ in renders_select(ReplaySelection(render_ids=picked))} == set(picked)
        assert len({label for _, label in renders_select(
            ReplaySelection(group_by="none", limit=1000))}) == 1


@pytest.mark.django_db
class TestAutoGrouping:
    """The default grouping gives groups with spread on the data at hand."""

    def test_repeated_prompts_group_by_prompt(self, world):
        selection = selection_resolve(ReplaySelection(group_by="auto", limit=1000))
        assert selection.group_by == "prompt"
        assert selection.group_reason == ("49 of 49 renders share their prompt with at least "
                                          "2 others (12 prompts)")
        chosen = renders_select(ReplaySelection(group_by="auto", limit=1000))
        assert chosen == renders_select(ReplaySelection(group_by="prompt", limit=1000))

    def test_distinct_prompts_like_the_demo_corpus_group_by_subject(self, media):
        for start, prompt in ((0, "a hibiscus"), (10, "a tulip"), (20, "a still vase")):
            renders_create(10, prompt=prompt, start=start)  # 30 renders, 30 prompts
        selection = selection_resolve(ReplaySelection(group_by="auto", limit=1000))
        assert selection.group_by == "subject"
        assert selection.group_reason == (
            "prompts repeat too rarely (30 prompts among 30 renders); 30 of 30 share their "
            "subject with at least 2 others (3 subjects)")
        groups = Counter(label for _, label in renders_select(
            ReplaySelection(group_by="auto", limit=1000)))
        assert groups == {"hibiscus": 8, "tulip": 8, "vase": 8}  # at most per_group each

    def test_neither_repeating_makes_one_group(self, media):
        for start, prompt in ((0, "a hibiscus"), (1, "a tulip"), (2, "a vase")):
            renders_create(1, prompt=prompt, start=start)
        selection = selection_resolve(ReplaySelection(group_by="auto"))
        assert selection.group_by == "none"
        assert "one group of all of them" in selection.group_reason
        assert {label for _, label in renders_select(selection)} == {"all"}

    def test_the_lab_page_says_what_auto_would_pick_now(self, staff_client, client, world):
        page = client.get(LAB).content.decode()
        assert ("Automatic, on every render now: by prompt, as 49 of 49 renders share their "
                "prompt with at least 2 others (12 prompts).") in page

    def test_no_renders_no_groups(self, db):
        assert grouping_choose([], per_group=8) == ("none", "there are no renders to group")

    def test_a_chosen_grouping_is_kept(self, world):
        selection = ReplaySelection(group_by="subject")
        assert selection_resolve(selection) is selection

    def test_the_form_defaults_to_auto_and_the_replay_page_says_why(
            self, staff_client, client, world):
        from training.lab.forms import ReplayForm

        assert ReplayForm().fields["group_by"].initial == "auto"
        v2, _ = presets()
        local = Judge.objects.get(name="local")
        response = client.post(LAB, {"rubric": v2.pk, "snapshot": world.snapshot.pk,
                                     "judge": local.pk, "scorer": local.pk, "group_by": "auto",
                                     "per_group": 4, "limit": 24, "seed": 0,
                                     "include_rejected": "on"})
        replay = Replay.objects.get()
        assert response.status_code == 302 and replay.group_by == "prompt"
        page = client.get(reverse("training:replay", args=[replay.pk])).content.decode()
        assert ("24 in groups by prompt <span class=\"muted\">(chosen automatically: 49 of 49 "
                "renders share their prompt with at least 2 others (12 prompts))</span>") in page


@pytest.mark.django_db
class TestReplay:
    def test_v2_and_v1_side_by_side_on_the_same_renders(self, world):
        v2, v1 = presets()
        replay = replay_create(rubric=v2, compare_rubric=v1, snapshot=world.snapshot,
                               selection=ReplaySelection(limit=1000), drop_unanswerable=True,
                               queue=False)
        assert replay.items.count() == len(world.renders) + 1  # and the rejected render
        replay = job_run_here(kind="replay", pk=replay.pk)
        assert replay.status == "done", replay.error
        assert [r["label"] for r in replay.results["rubrics"]] == ["v2 (rev. 1)", "v1 (rev. 1)"]

        v1_signals = by_name(diagnostics_of(replay, 1))
        judges = ["recognisability", "beauty", "technique", "depth"]
        for name in judges:
            # One opinion asked four times: flagged as one signal counted four times.
            assert "redundant" in v1_signals[name]["flags"]
            assert set(judges) - {name} <= set(v1_signals[name]["redundant_with"])
        # Adherence the local model can never judge: dropped openly, never asked, and
        # every render has a total from the rest.
        v2_entry, v1_entry = replay.rubric_signals
        assert v2_entry["dropped"] == []
        [adherence] = v1_entry["dropped"]
        assert (adherence["name"], adherence["weight"]) == ("adherence", 0.07)
        assert "never sees the prompt" in adherence["reason"]
        assert "adherence" not in v1_signals
        assert diagnostics_of(replay, 1)["total"]["n"] == replay.items.count()
        # The rejected render made no picture: 0 on picture signals, not None.
        rejected = replay.items.get(render=world.rejected)
        v2_specs = v2.specs()
        assert [rejected.values[s.key] for s in v2_specs] == [0.0, 1.0, 0.0, 0.0]

        v2_signals = by_name(diagnostics_of(replay, 0))
        assert v2_signals["pairwise"]["missing"] == 0 and v2_signals["pairwise"]["std"] > 0
        advantages = diagnostics_of(replay, 0)["advantages"]
        assert len(advantages["values"]) == replay.items.count()

    def test_v1_with_a_vision_judge_answers_adherence_and_caches_its_verdicts(self, world):
        from tests.fake_vision_server import FakeVisionServer
        from training.models import JudgeVerdict

        v2, v1 = presets()
        with FakeVisionServer() as server:
            vision = Judge.objects.create(name="vision", backend="openai", model="fake-vlm",
                                          base_url=server.url, api_key_env="", timeout_s=5)
            selection = ReplaySelection(limit=12, per_group=4, include_rejected=False)
            replay = job_run_here(kind="replay", pk=replay_create(
                rubric=v1, compare_rubric=v2, snapshot=world.snapshot, judge=vision,
                selection=selection, queue=False).pk)
            asked = server.requests
            again = job_run_here(kind="replay", pk=replay_create(
                rubric=v1, compare_rubric=v2, snapshot=world.snapshot, judge=vision,
                selection=selection, queue=False).pk)
            assert server.requests == asked  # every verdict came from the cache
        assert replay.status == again.status == "done", replay.error
        v1_signals = by_name(diagnostics_of(replay, 0))
        assert v1_signals["adherence"]["missing"] == 0 and v1_signals["adherence"]["n"] == 12
        # 12 renders x 5 criteria rated, and 12 x 2 references compared in both orders.
        assert asked == 12 * 5 + 12 * 2 * 2
        assert JudgeVerdict.objects.filter(judge_key__startswith="openai:").count() \
            == 12 * 5 + 12 * 2
        assert diagnostics_of(replay, 0)["signals"] == diagnostics_of(again, 0)["signals"]

    def test_adherence_asked_of_the_local_model_is_refused_with_the_way_out(self, world):
        v2, v1 = presets()
        with pytest.raises(ReplayError) as refused:
            replay_create(rubric=v2, compare_rubric=v1, snapshot=world.snapshot,
                          selection=ReplaySelection(limit=8), queue=False)
        message = str(refused.value)
        for expected in ("rubric v1 (rev. 1)", "adherence (weight 0.07)",
                         "never sees the prompt", "choose a vision judge",
                         'tick "Drop signals the judges cannot answer"'):
            assert expected in message
        assert not Replay.objects.exists()

    def test_without_a_snapshot_pairwise_is_refused_or_dropped_openly(self, world):
        v2, _ = presets()
        with pytest.raises(ReplayError, match="pairwise .*choose a pool snapshot"):
            replay_create(rubric=v2, selection=ReplaySelection(limit=8), queue=False)
        replay = job_run_here(kind="replay", pk=replay_create(
            rubric=v2, selection=ReplaySelection(limit=8), drop_unanswerable=True,
            queue=False).pk)
        assert replay.status == "done"
        assert [d["name"] for d in replay.rubric_signals[0]["dropped"]] == ["pairwise"]
        assert "pairwise" not in by_name(diagnostics_of(replay, 0))
        assert diagnostics_of(replay, 0)["total"]["n"] == 8
        assert not any("pairwise" in key for item in replay.items.all() for key in item.values)

    def test_without_a_reward_model_picture_signals_are_refused_or_dropped(self, media):
        world = lab_world(count=8, train=False)
        v2, _ = presets()
        selection = ReplaySelection(limit=8, include_rejected=False)
        with pytest.raises(ReplayError, match="preference \\(weight 0.3\\): scorer local: "
                                              "no active reward model: train one"):
            replay_create(rubric=v2, snapshot=world.snapshot, selection=selection, queue=False)
        replay = job_run_here(kind="replay", pk=replay_create(
            rubric=v2, snapshot=world.snapshot, selection=selection, drop_unanswerable=True,
            queue=False).pk)
        assert replay.status == "done"
        assert [d["name"] for d in replay.rubric_signals[0]["dropped"]] == ["preference",
                                                                            "pairwise"]
        signals = by_name(diagnostics_of(replay, 0))
        assert set(signals) == {"gate", "length"} and signals["gate"]["mean"] == 1.0
        assert any("no active reward model" in notice for notice in replay.notices)

    def test_a_second_delivery_changes_nothing_and_an_interrupted_one_resumes(self, world):
        v2, _ = presets()
        replay = job_run_here(kind="replay", pk=replay_create(
            rubric=v2, snapshot=world.snapshot, selection=ReplaySelection(limit=1000),
            queue=False).pk)
        values = {item.pk: item.values for item in replay.items.all()}
        assert job_run_here(kind="replay", pk=replay.pk).finished == replay.finished
        # A worker died halfway: half the values were never saved.
        half = list(replay.items.values_list("pk", flat=True))[::2]
        ReplayItem.objects.filter(pk__in=half).update(values={})
        # While its lease is fresh the job is still its worker's: left alone.
        Replay.objects.filter(pk=replay.pk).update(status="running", worker="other",
                                                   heartbeat=timezone.now())
        assert job_run_here(kind="replay", pk=replay.pk).status == "running"
        assert ReplayItem.objects.filter(pk__in=half, values={}).count() == len(half)
        # Once its worker has been silent PAINTRL_JOB_STALE_S, the next delivery takes over.
        Replay.objects.filter(pk=replay.pk).update(
            heartbeat=timezone.now() - timedelta(seconds=job_stale_s() + 1))
        resumed = job_run_here(kind="replay", pk=replay.pk)
        assert resumed.status == "done"
        assert {item.pk: item.values for item in resumed.items.all()} == values

    def test_cancel(self, world):
        v2, _ = presets()
        queued = replay_create(rubric=v2, snapshot=world.snapshot,
                               selection=ReplaySelection(limit=8), queue=False)
        assert "cancelled before it started" in replay_cancel(replay=queued).message
        assert job_run_here(kind="replay", pk=queued.pk).status == "cancelled"
        running = replay_create(rubric=v2, snapshot=world.snapshot,
                                selection=ReplaySelection(limit=8), queue=False)
        Replay.objects.filter(pk=running.pk).update(status="running")
        running.refresh_from_db()
        assert "after its current batch" in replay_cancel(replay=running).message
        stopped = job_run_here(kind="replay", pk=running.pk)
        assert stopped.status == "cancelled"
        assert not stopped.items.exclude(values={}).exists()
        assert "already finished" in replay_cancel(replay=stopped).message

    def test_an_empty_selection_is_refused(self, world):
        v2, _ = presets()
        with pytest.raises(ReplayError, match="no renders match"):
            replay_create(rubric=v2, selection=ReplaySelection(prompt_contains="nothing"),
                          queue=False)


@pytest.mark.django_db
class TestPages:
    def test_staff_only(self, client, world):
        assert client.get(LAB).status_code == 302  # to the login page
        client.force_login(curator_create("alice-curator"))
        assert client.get(LAB).status_code == 403
        assert client.post(LAB, {}).status_code == 403

    def test_start_watch_and_read_a_replay(self, staff_client, client, world,
                                           django_capture_on_commit_callbacks):
        page = client.get(LAB)
        assert page.status_code == 200 and b"New replay" in page.content
        v2, v1 = presets()
        local = Judge.objects.get(name="local")
        form = {"rubric": v2.pk, "compare_rubric": v1.pk, "snapshot": world.snapshot.pk,
                "judge": local.pk, "scorer": local.pk, "group_by": "prompt", "per_group": 4,
                "limit": 24, "seed": 0, "include_rejected": "on", "name": "v1 against v2"}
        refused = client.post(LAB, form)  # the local model cannot judge v1's adherence
        assert refused.status_code == 400 and not Replay.objects.exists()
        assert "never sees the prompt" in refused.content.decode()
        form["drop_unanswerable"] = "on"
        with django_capture_on_commit_callbacks(execute=False) as queued:
            response = client.post(LAB, form)
        replay = Replay.objects.get(name="v1 against v2")
        assert response.status_code == 302 and len(queued) == 1
        watching = client.get(reverse("training:replay", args=[replay.pk]))
        assert b"of 24 renders scored" in watching.content and b'hx-trigger="every 2s"' \
            in watching.content
        job_run_here(kind="replay", pk=replay.pk)
        done = client.get(reverse("training:replay", args=[replay.pk]))
        text = done.content.decode()
        assert "hx-trigger" not in text
        assert text.count("<svg") == 6  # three charts per rubric
        # The local judge's preference score and its four absolute answers are one opinion.
        assert "one signal counted 5 times" in text
        assert "<s>adherence 0.07</s> dropped: the local reward model never sees" in text
        assert "Highest reward" in text and "Lowest reward" in text
        fragment = client.get(reverse("training:replay", args=[replay.pk]),
                              headers={"HX-Request": "true"})
        assert b'id="replay-body"' in fragment.content and b"<h1>" not in fragment.content

    def test_the_forms_defaults_make_a_replay_the_lab_takes(self, staff_client, client, world):
        """The form once preselected v1 to compare with, whose adherence the local
        judge cannot answer, so the first submit was a 400: what the form
        preselects, submitted unchanged, is a replay."""
        from training.lab.forms import ReplayForm

        form = ReplayForm()
        defaults = {name: field.initial for name, field in form.fields.items()
                    if field.initial is not None and field.initial is not False}
        defaults = {name: getattr(value, "pk", value) for name, value in defaults.items()}
        assert "compare_rubric" not in defaults
        assert "v1 asks the local judge for adherence" in form.fields["compare_rubric"].help_text
        response = client.post(LAB, defaults)
        assert response.status_code == 302, response.content.decode()[-2000:]
        assert Replay.objects.get().rubric.name == "v2"

    def test_a_bad_form_says_why(self, staff_client, client, world):
        v2, _ = presets()
        response = client.post(LAB, {"rubric": v2.pk, "compare_rubric": v2.pk, "limit": 8,
                                     "judge": 1, "scorer": 1, "group_by": "prompt",
                                     "per_group": 4, "seed": 0})
        assert response.status_code == 400
        assert b"compare the rubric with a different one" in response.content
        response = client.post(LAB, {"rubric": v2.pk, "limit": 8, "judge": 1, "scorer": 1,
                                     "group_by": "prompt", "per_group": 4, "seed": 0,
                                     "prompt_contains": "no such prompt"})
        assert response.status_code == 400 and b"no renders match" in response.content


    def test_render_ids_take_ids_and_ranges(self, client, world):
        from training.lab.forms import ReplayForm

        v2, _ = presets()
        base = {"rubric": v2.pk, "judge": 1, "scorer": 1, "group_by": "prompt",
                "per_group": 4, "limit": 8, "seed": 0}
        form = ReplayForm({**base, "render_ids": "7, 3-5,5"})
        assert form.is_valid(), form.errors
        assert form.selection().render_ids == (7, 3, 4, 5)
        for bad in ("x", "5-3", "1-999999"):
            form = ReplayForm({**base, "render_ids": bad})
            assert not form.is_valid() and "render_ids" in form.errors


@pytest.mark.django_db
class TestRubricAdmin:
    def test_edit_validate_and_save_as_a_new_version(self, client):
        boss = curator_create("boss", staff=True)
        boss.is_superuser = True
        boss.save()
        client.force_login(boss)
        v2, _ = presets()
        url = reverse("admin:training_rubric_change", args=[v2.pk])
        form = client.get(url)
        assert form.status_code == 200
        assert form.context["adminform"].form.instance == v2
        bad = client.post(url, {"name": "v2", "description": "",
                                "signals": '[{"kind": "gate", "weight": -1}]'})
        assert bad.status_code == 200 and b"weight must be a number" in bad.content
        signals = '[{"kind": "gate", "weight": 0.5}, {"kind": "pairwise", "weight": 0.5}]'
        saved = client.post(url, {"name": "v2", "description": "heavier gate",
                                  "signals": signals, "_saveasnew": "Save as new"})
        assert saved.status_code == 302
        newer = Rubric.objects.get(name="v2", version=2)
        assert not newer.preset and [s.weight for s in newer.specs()] == [0.5, 0.5]
        v2.refresh_from_db()
        assert v2.signals[0]["weight"] == 0.05  # the preset is left as it was
        listing = client.get(reverse("admin:training_rubric_changelist"))
        assert b"pairwise 0.6" in listing.content


@pytest.mark.django_db
class TestJudgeAgreement:
    def test_the_local_judge_is_measured_on_held_out_renders(self, world):
        from training.lab.agreement import judge_agreement_measure

        local = Judge.objects.get(name="local")
        result = judge_agreement_measure(judge=local)
        held_out = set(world.reward_model.training_data["render_ids"]["test"])
        assert result["renders"] == len(held_out) and result["grades"] == "people"
        assert result["pairwise_accuracy"] > 0.7 and result["preference_spearman"] > 0.5
        local.refresh_from_db()
        assert local.agreement == result and local.agreement_measured is not None

    def test_no_reward_model_is_recorded_as_the_reason(self, media):
        from training.lab.agreement import judge_agreement_measure

        lab_world(count=6, train=False)
        result = judge_agreement_measure(judge=Judge.objects.get(name="local"))
        assert "no active reward model" in result["error"]


def test_a_replay_queued_from_the_page_runs_on_the_short_worker(staff_client, media, short_worker,
                                                                 client):
    world = lab_world()
    v2, v1 = presets()
    local = Judge.objects.get(name="local")
    client.post(LAB, {"rubric": v2.pk, "compare_rubric": v1.pk, "snapshot": world.snapshot.pk,
                      "judge": local.pk, "scorer": local.pk, "group_by": "prompt",
                      "per_group": 4, "limit": 100, "seed": 0, "include_rejected": "on",
                      "drop_unanswerable": "on"})
    replay = Replay.objects.get()
    wait_for(lambda: Replay.objects.get(pk=replay.pk).is_finished, timeout=120,
             worker=short_worker)
    replay.refresh_from_db()
    assert replay.status == "done", replay.error
    assert replay.progress["done"] == replay.progress["total"] == replay.items.count() == 48
    assert not replay.items.filter(values={}).exists()
