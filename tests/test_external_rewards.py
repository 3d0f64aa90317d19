"""The reward service (training/external/, api/routes/external.py): an
external run opened from its rubric and judges; a batch posted with a token,
rendered by a real render worker, scored as a run's rollouts and stored as
rollout sketches; a retry answered from what was stored; and every refusal
in the API's {detail, problems} shape, writing nothing."""
from __future__ import annotations

import json

import pytest
import redis
from django.contrib.auth.models import Permission
from django.test import Client

from api.tokens import token_create
from sketches.models import Render, Sketch
from tests.lab_data import presets_ensure, yardstick_world
from tests.rating_data import curator_create
from tests.sketch_files import read_sketch
from tests.workers import TEST_REDIS_URL, broker_use
from training.external.services import (
    ExternalError,
    Item,
    batch_content_sha256,
    external_run_open,
    group_seed,
)
from training.models import ExternalBatch, ExternalItem, ExternalRun, Judge, Rubric
from training.runs.probe.plan import PROBE_REFERENCES

pytestmark = pytest.mark.usefixtures("fleet_watch_fresh")

API = "/api/v1"
GATES = [{"name": "gate", "kind": "gate", "weight": 1},
         {"name": "length", "kind": "length", "weight": 1,
          "params": {"mode": "bound", "max_tokens": 5000}}]


class Caller:
    def __init__(self, user):
        self.raw = token_create(user=user, name="trainer")[1]
        self.client = Client()

    def post(self, path: str, body):
        return self.client.post(API + path, data=json.dumps(body),
                                content_type="application/json",
                                headers={"Authorization": f"Bearer {self.raw}"})

    def get(self, path: str):
        return self.client.get(API + path, headers={"Authorization": f"Bearer {self.raw}"})


def service_account(name: str = "verl"):
    user = curator_create(name, staff=True)
    user.user_permissions.add(Permission.objects.get(codename="score_externalrun"))
    return user


def external_run(*, signals=GATES, open_it: bool = True, **fields) -> ExternalRun:
    presets_ensure()
    local = Judge.objects.get(name="local")
    run = ExternalRun.objects.create(name=fields.pop("name", "grpo-7b"),
                                     rubric=Rubric.objects.create(name="gates", signals=signals),
                                     judge=local, scorer=local, **fields)
    return external_run_open(run=run) if open_it else run


def batch(*items, key: str = "step-0001-a", step: int | None = 1) -> dict:
    return {"client_key": key, "step": step, "items": list(items)}


def item(completion: str, group: str = "", prompt: str = "a red kite") -> dict:
    return {"prompt": prompt, "completion": completion, "group": group}


def nothing_written() -> bool:
    return not ExternalBatch.objects.exists() and not Sketch.objects.exists()


def assert_refused(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"detail", "problems"} and body["problems"]
    return body


@pytest.mark.django_db
class TestOpening:
    def test_opening_freezes_the_rubric_s_signals(self):
        run = external_run()
        assert run.status == ExternalRun.Status.OPEN and run.opened is not None
        assert run.signals == GATES and run.dropped_signals == []

    def test_a_signal_the_judges_can_never_answer_is_refused_unless_dropped(self):
        pairwise = [*GATES, {"name": "pairwise", "kind": "pairwise", "weight": 1}]
        run = external_run(signals=pairwise, open_it=False)
        with pytest.raises(ExternalError) as refused:
            external_run_open(run=run)
        assert refused.value.status == 400
        assert "no pool snapshot was chosen" in " ".join(refused.value.problems)
        run.drop_unanswerable = True
        run.save()
        opened = external_run_open(run=run)
        assert [d["name"] for d in opened.dropped_signals] == ["pairwise"]


@pytest.mark.django_db
class TestRefusals:
    """Each refusal in the one shape, and nothing written."""

    def test_no_token_is_401_and_a_token_without_the_permission_403(self):
        external_run()
        assert_refused(Client().post(f"{API}/external-runs/grpo-7b/rewards", data="{}",
                                     content_type="application/json"), 401)
        plain_staff = Caller(curator_create("ops", staff=True))
        body = assert_refused(plain_staff.post("/external-runs/grpo-7b/rewards",
                                               batch(item("x"))), 403)
        assert "score_externalrun" in body["detail"]
        assert nothing_written()

    def test_an_unknown_run_is_404_and_a_draft_409(self):
        caller = Caller(service_account())
        assert_refused(caller.post("/external-runs/nope/rewards", batch(item("x"))), 404)
        external_run(open_it=False)
        body = assert_refused(caller.post("/external-runs/grpo-7b/rewards", batch(item("x"))),
                              409)
        assert "draft" in body["detail"]
        assert nothing_written()

    @pytest.mark.parametrize("body, where", [
        (batch(), "items"),
        ({"step": 1, "items": [item("x")]}, "client_key"),
        (batch(item("x"), key="short"), "client_key"),
        (batch(item("x"), step=-1), "step"),
        (batch(item("x"), step="7"), "step"),
        (batch({"prompt": "p"}), "items.0.completion"),
        (batch({**item("x"), "reward": 1}), "items.0.reward"),
        (batch(item("x\x00y")), "items.0.completion"),
        (batch(item("x", group="g" * 201)), "items.0.group"),
        ({**batch(item("x")), "extra": 1}, "extra"),
        ([item("x")], "data"),
    ])
    def test_bad_input_is_400_naming_where(self, body, where):
        external_run()
        answer = assert_refused(Caller(service_account()).post("/external-runs/grpo-7b/rewards",
                                                               body), 400)
        assert any(p.startswith(where) for p in answer["problems"]), answer["problems"]
        assert nothing_written()

    def test_a_batch_over_the_bound_is_400(self, settings):
        settings.PAINTRL_REWARD_BATCH_MAX = 2
        external_run()
        answer = assert_refused(Caller(service_account()).post(
            "/external-runs/grpo-7b/rewards", batch(item("a"), item("b"), item("c"))), 400)
        assert answer["problems"] == ["items: at most 2 per request, got 3"]
        assert nothing_written()

    def test_over_the_run_s_concurrency_is_429_with_retry_after(self, settings):
        settings.PAINTRL_REWARD_CONCURRENCY = 1
        settings.PAINTRL_REWARD_RETRY_AFTER_S = 7
        run = external_run()
        ExternalBatch.objects.create(run=run, client_key="other-batch-1", step=1, size=4)
        response = Caller(service_account()).post("/external-runs/grpo-7b/rewards",
                                                  batch(item("x")))
        assert_refused(response, 429)
        assert response["Retry-After"] == "7"
        assert list(ExternalBatch.objects.values_list("client_key", flat=True)) == [
            "other-batch-1"]

    def test_a_retry_of_a_batch_still_scoring_is_409_with_retry_after(self):
        run = external_run()
        ExternalBatch.objects.create(run=run, client_key="step-0001-a", step=1, size=1)
        response = Caller(service_account()).post("/external-runs/grpo-7b/rewards",
                                                  batch(item("x")))
        assert "still being scored" in assert_refused(response, 409)["detail"]
        assert response["Retry-After"]
        assert ExternalBatch.objects.count() == 1 and not Sketch.objects.exists()


@pytest.mark.django_db
class TestAFleetThatCannotTakeABatch:
    """503 with Retry-After, the key freed and nothing written; a batch
    scored already is still answered."""

    def test_with_no_render_worker_it_is_503(self, settings):
        broker_use()
        settings.PAINTRL_REWARD_RETRY_AFTER_S = 3
        external_run()
        response = Caller(service_account()).post("/external-runs/grpo-7b/rewards",
                                                  batch(item("x")))
        assert "No render worker" in assert_refused(response, 503)["detail"]
        assert response["Retry-After"] == "10"  # the watch's own interval, the longer
        assert nothing_written()

    def test_over_the_backlog_it_is_503_naming_the_queue(self, settings):
        broker_use()
        settings.PAINTRL_REWARD_BACKLOG_MAX = 2
        external_run()
        redis.Redis.from_url(TEST_REDIS_URL).rpush("render", *["waiting"] * 3)
        response = Caller(service_account()).post("/external-runs/grpo-7b/rewards",
                                                  batch(item("x")))
        body = assert_refused(response, 503)
        assert body["problems"] == ["3 renders wait on the render queue, more than 2: ask "
                                    "again later"]
        assert response["Retry-After"] and nothing_written()

    def test_a_batch_scored_already_is_answered(self):
        broker_use()
        run = external_run()
        body = batch(item("x"))
        done = ExternalBatch.objects.create(
            run=run, client_key=body["client_key"], step=1, size=1,
            content_sha256=batch_content_sha256(1, [Item("a red kite", "x")]),
            status=ExternalBatch.Status.DONE)
        ExternalItem.objects.create(batch=done, index=0, prompt="a red kite", total=0.5,
                                    signals={"gate": 0.0})
        response = Caller(service_account()).post("/external-runs/grpo-7b/rewards", body)
        assert response.status_code == 200, response.content
        assert response.json()["replayed"] is True
        assert response.json()["items"][0]["total"] == 0.5


class TestSeeds:
    def test_one_seed_per_group_and_step(self):
        assert group_seed(0, 3, "g") == group_seed(0, 3, "g")
        assert len({group_seed(0, 3, "g"), group_seed(0, 4, "g"), group_seed(0, 3, "h"),
                    group_seed(1, 3, "g")}) == 4


class TestABatchOnTheRenderFleet:
    def test_scored_stored_as_rollouts_and_a_retry_renders_nothing_again(self, render_worker):
        broker_use()
        external_run(seed=11)
        good, bad = read_sketch("good/lines.js"), read_sketch("hostile/chat_reply_no_code.txt")
        caller = Caller(service_account())
        body = batch(item(good, group="p0"), item(bad, group="p0"), item(good))
        response = caller.post("/external-runs/grpo-7b/rewards", body)
        assert response.status_code == 200, response.content
        answer = response.json()
        assert (answer["run"], answer["step"], answer["replayed"]) == ("grpo-7b", 1, False)
        first, second, third = answer["items"]
        assert first["gate"]["status"] == "ok" and first["total"] == 1.0
        assert first["signals"] == {"gate": 1.0, "length": 1.0}
        # A sketch's own failure is a 0 on the gate, never None: its total is counted.
        assert second["gate"]["status"] == "rejected" and second["total"] == 0.5
        assert third["total"] == 1.0
        renders = Render.objects.in_bulk([i["render_id"] for i in answer["items"]])
        assert renders[first["render_id"]].seed == renders[second["render_id"]].seed \
            == group_seed(11, 1, "p0")
        assert {r.sketch.origin for r in renders.values()} == {Sketch.Origin.ROLLOUT}
        assert ExternalItem.objects.count() == 3

        retry = caller.post("/external-runs/grpo-7b/rewards", body)
        assert retry.status_code == 200
        assert retry.json()["replayed"] is True
        assert retry.json()["items"] == answer["items"]
        assert Sketch.objects.count() == 3 and Render.objects.count() == 3
        listed = caller.get("/external-runs/grpo-7b").json()
        assert (listed["status"], listed["batches"], listed["yardstick"]) == ("open", 1, None)


class TestAYardstick:
    """With a yardstick, each item is scored against the pool references
    frozen at opening (a rejected sketch 0), and the page draws gold against
    the proxy over the client's steps."""

    def test_items_are_scored_and_the_page_shows_the_overoptimisation_curve(
            self, render_worker, client):
        broker_use()
        world, yardstick = yardstick_world()
        shared = external_run(open_it=False, name="gold", snapshot=world.snapshot,
                              yardstick=world.reward_model)
        with pytest.raises(ExternalError) as refused:
            external_run_open(run=shared)  # the judge's own model: its blind spots shared
        assert "was not trained disjoint" in " ".join(refused.value.problems)
        ExternalRun.objects.filter(pk=shared.pk).delete()

        run = external_run(name="gold", snapshot=world.snapshot, yardstick=yardstick)
        assert run.yardstick_plan["yardstick"]["id"] == yardstick.pk
        assert len(run.yardstick_plan["references"]) == min(
            PROBE_REFERENCES, world.snapshot.members.count())
        good, bad = read_sketch("good/lines.js"), read_sketch("hostile/chat_reply_no_code.txt")
        caller = Caller(service_account())
        for step in (1, 2):
            response = caller.post("/external-runs/gold/rewards",
                                   batch(item(good), item(bad), key=f"gold-step-{step}",
                                         step=step))
            assert response.status_code == 200, response.content
        scores = list(ExternalItem.objects.order_by("batch__step", "index")
                      .values_list("render__status", "yardstick"))
        assert [status for status, _ in scores] == ["ok", "rejected"] * 2
        assert all(0.0 < gold < 1.0 for status, gold in scores if status == "ok")
        assert [gold for status, gold in scores if status == "rejected"] == [0.0, 0.0]

        assert caller.get("/external-runs/gold").json()["yardstick"] == {
            "id": yardstick.pk, "version": yardstick.version, "role": yardstick.role}
        client.force_login(curator_create("boss", superuser=True))
        page = client.get(run.get_absolute_url())
        curve = page.context["overoptimisation"]
        assert (curve["points"], curve["gold"], len(curve["charts"])) == (2, "yardstick", 1)
        assert b"Gold against proxy" in page.content


@pytest.mark.django_db
class TestTheRunPage:
    def test_it_shows_the_client_s_steps_and_their_curves(self, client, media):
        run = external_run()
        for step, rows in ((3, [(1.0, "ok"), (None, "unavailable")]),
                           (4, [(0.5, "rejected"), (1.0, "ok")])):
            batch_row = ExternalBatch.objects.create(run=run, client_key=f"batch-{step:04d}",
                                                     step=step, size=len(rows),
                                                     status=ExternalBatch.Status.DONE)
            for index, (total, status) in enumerate(rows):
                sketch = Sketch.objects.create(code="x", prompt="p",
                                               origin=Sketch.Origin.ROLLOUT)
                ExternalItem.objects.create(
                    batch=batch_row, index=index, prompt="p", sketch=sketch,
                    render=Render.objects.create(sketch=sketch, status=status), total=total,
                    signals={"gate": None if total is None else float(status == "ok")})
        client.force_login(curator_create("boss", superuser=True))
        page = client.get(run.get_absolute_url())
        assert page.status_code == 200
        steps = {s.step: s for s in page.context["steps"]}
        assert (steps[3].items, steps[3].no_total, steps[3].gate_pass) == (2, 1, 1.0)
        assert (steps[4].reward_mean, steps[4].gate_pass) == (0.75, 0.5)
        assert b"<svg" in page.content and b"client step" in page.content


@pytest.mark.django_db
class TestAKeySentAgain:
    def test_with_other_items_is_409_and_writes_nothing(self):
        run = external_run()
        ExternalBatch.objects.create(run=run, client_key="step-0001-a", step=1, size=1,
                                     content_sha256="0" * 64,
                                     status=ExternalBatch.Status.DONE)
        answer = assert_refused(Caller(service_account()).post(
            "/external-runs/grpo-7b/rewards", batch(item("x"))), 409)
        assert "another batch" in answer["detail"]
        assert ExternalBatch.objects.count() == 1 and not Sketch.objects.exists()
