"""Signal values for batches of rollouts: the gates, length, and the picture
signals asked of the local reward-model judge, with None (never 0) for what
could not be computed and 0 for a sketch that made no picture; a rollout
with such a None has no total under either preset; and the questions a
judge can never answer, found before any scoring."""
from __future__ import annotations

import statistics

import pytest

from pool.models import PoolSnapshot
from sketches.rendering import OK, REJECTED, UNAVAILABLE
from tests.lab_data import lab_world
from training.models import Judge
from training.reward.inputs import SignalContext, SignalInput, approx_tokens, rollout_from_render
from training.reward.judges import JudgeBackend, JudgeUnavailable, judge_backend
from training.reward.judges.cache import CachedJudge
from training.reward.judges.hpsv3 import HPSv3Judge
from training.reward.judges.local import LocalRewardModelJudge
from training.reward.judges.openai_compat import OpenAICompatibleJudge
from training.reward.kinds import KINDS
from training.reward.rubric import PRESETS, rubric_total, signal_specs
from training.reward.scoring import (
    signal_context_for,
    signal_problem,
    signals_compute,
    signals_unanswerable,
)


def values_of(signals, rollouts, context=None):
    specs = signal_specs(signals)
    rows = signals_compute(specs, rollouts, context or SignalContext(judge=None, scorer=None))
    return [[row[spec.key] for spec in specs] for row in rows]


GATES = [{"name": "gate", "kind": "gate", "weight": 1},
         {"name": "compiles", "kind": "compile_gate", "weight": 1},
         {"name": "uses brush", "kind": "brush_gate", "weight": 1}]


def test_gates_follow_the_renderers_verdict_and_a_browser_failure_is_none():
    rollouts = [
        SignalInput("a", "p", "code", OK),
        SignalInput("b", "p", "code", REJECTED, ["syntax_error"]),
        SignalInput("c", "p", "code", REJECTED, ["no_brush_painting", "plain_primitives_only"]),
        SignalInput("d", "p", "code", REJECTED, ["network_access"]),
        SignalInput("e", "p", "code", UNAVAILABLE),
        SignalInput("f", "p", "code", REJECTED, ["plain_painting"]),
        SignalInput("g", "p", "code", REJECTED, ["raw_webgl", "direct_pixels"]),
    ]
    assert values_of(GATES, rollouts) == [
        [1.0, 1.0, 1.0],
        [0.0, 0.0, 0.0],  # never ran, so never painted with the brush either
        [0.0, 1.0, 0.0],
        [0.0, 1.0, 1.0],  # compiled and painted, but reached for the network
        [None, None, None],
        [0.0, 1.0, 0.0],  # plain p5 laid the paint beside a token brush call
        [0.0, 1.0, 0.0],
    ]


def test_length_bound_and_ramp():
    signals = [{"name": "bound", "kind": "length", "weight": 1,
                "params": {"min_tokens": 10, "max_tokens": 100}},
               {"name": "ramp", "kind": "length", "weight": 1,
                "params": {"mode": "ramp", "target_tokens": 200}}]
    rollouts = [SignalInput(str(n), "p", "", OK, tokens=n) for n in (5, 50, 100, 400)]
    assert values_of(signals, rollouts) == [[0.0, 0.025], [1.0, 0.25], [1.0, 0.5], [0.0, 1.0]]


def test_tokens_are_approximated_from_the_code_when_no_tokenizer_counted_them():
    assert approx_tokens("brush.fill('red', 40);") == 11
    assert SignalInput("a", "p", "let x = 1;", OK).token_count == 5


@pytest.mark.django_db
class TestLocalJudge:
    @pytest.fixture
    def world(self, media):
        return lab_world()

    def rollouts(self, world):
        return [rollout_from_render(r) for r in world.renders]

    def mean_by_grade(self, values, world) -> dict[str, float]:
        grades = [r.grades.get().value for r in world.renders]
        return {grade: statistics.mean(v for v, g in zip(values, grades, strict=True)
                                       if g == grade) for grade in ("love", "okay", "nope")}

    def test_preference_ranks_the_grades(self, world):
        judge = LocalRewardModelJudge()
        rollouts = self.rollouts(world)
        scores = judge.preference([r.picture for r in rollouts], [r.prompt for r in rollouts])
        by_grade = self.mean_by_grade(scores, world)
        assert by_grade["love"] > by_grade["okay"] > by_grade["nope"], by_grade
        assert all(0.0 <= s <= 1.0 for s in scores)

    def test_compare_is_the_bradley_terry_probability_and_is_antisymmetric(self, world):
        judge = LocalRewardModelJudge()
        a, b = (rollout_from_render(r).picture for r in world.renders[:2])
        forward, backward = judge.compare([(a, b), (b, a)], ["p", "p"])
        assert forward + backward == pytest.approx(1.0)
        assert judge.compare([(a, a)], ["p"]) == [pytest.approx(0.5)]

    def test_pairwise_win_fraction_against_the_pool(self, world):
        judge = LocalRewardModelJudge()
        context = SignalContext(judge=judge, scorer=judge, snapshot=world.snapshot, seed=3)
        signals = [{"name": "pairwise", "kind": "pairwise", "weight": 1, "params": {"k": 3}}]
        rollouts = self.rollouts(world) + [rollout_from_render(world.rejected),
                                           rollout_from_render(world.unavailable)]
        values = [row[0] for row in values_of(signals, rollouts, context)]
        *graded, rejected, unavailable = values
        assert rejected == 0.0 and unavailable is None
        wins = self.mean_by_grade(graded, world)
        # The tiny model's scores are close together, so the margins are small.
        assert wins["love"] > wins["okay"] > wins["nope"], wins
        # Seeded: the same references, so the same values.
        again = SignalContext(judge=judge, scorer=judge, snapshot=world.snapshot, seed=3)
        assert [row[0] for row in values_of(signals, rollouts, again)] == values

    def test_pairwise_without_a_snapshot_is_none_with_a_notice(self, world):
        judge = LocalRewardModelJudge()
        context = SignalContext(judge=judge, scorer=judge, snapshot=None)
        signals = [{"name": "pairwise", "kind": "pairwise", "weight": 1}]
        rollouts = self.rollouts(world)[:3] + [rollout_from_render(world.rejected)]
        assert [row[0] for row in values_of(signals, rollouts, context)] == [None] * 3 + [0.0]
        assert any("no pool snapshot" in notice for notice in context.notices)

    def test_absolute_criteria_get_its_one_opinion_and_adherence_is_none(self, world):
        judge = LocalRewardModelJudge()
        context = SignalContext(judge=judge, scorer=judge)
        signals = [{"name": "preference", "kind": "preference", "weight": 1},
                   {"name": "beauty", "kind": "absolute", "weight": 1,
                    "params": {"criterion": "beauty"}},
                   {"name": "adherence", "kind": "absolute", "weight": 1,
                    "params": {"criterion": "adherence"}}]
        for preference, beauty, adherence in values_of(signals, self.rollouts(world)[:6],
                                                       context):
            assert beauty == preference and adherence is None
        assert any("one opinion" in n for n in context.notices)
        assert any("cannot judge adherence" in n for n in context.notices)


@pytest.mark.django_db
def test_without_an_active_reward_model_the_local_judge_says_what_to_do(media):
    lab_world(count=6, train=False)
    with pytest.raises(JudgeUnavailable, match="no active reward model: train one"):
        judge_backend(Judge.objects.get(name="local"))


@pytest.mark.django_db
def test_picture_signals_without_a_judge_are_none_never_zero():
    rollouts = [SignalInput("a", "p", "code", OK, picture=None),
                SignalInput("b", "p", "", REJECTED)]
    context = SignalContext(judge=None, scorer=None)
    signals = [{"name": "preference", "kind": "preference", "weight": 1}]
    assert values_of(signals, rollouts, context) == [[None], [0.0]]


@pytest.mark.django_db
@pytest.mark.parametrize("preset", ["v2", "v1"])
def test_an_unavailable_render_has_no_total_though_its_length_has_a_value(media, preset):
    """The issue's case, through the real signals: the browser failed, so the picture
    signals and the gates are None, the length signal is not. Under the old rule (the mean
    of what answered) v2 paid this rollout 1.0."""
    world = lab_world()
    judge = LocalRewardModelJudge()
    context = SignalContext(judge=judge, scorer=judge, snapshot=world.snapshot)
    specs = signal_specs(PRESETS[preset]["signals"])
    rollouts = [rollout_from_render(world.unavailable), rollout_from_render(world.renders[0])]
    unavailable, painted = signals_compute(specs, rollouts, context)
    length = next(s for s in specs if s.kind == "length")
    assert unavailable[length.key] is not None
    assert all(unavailable[s.key] is None for s in specs if s.kind != "length")
    assert rubric_total(unavailable, specs) is None
    # The painted render answers everything but (under v1) adherence, which the local
    # model can never judge: no total either, which is why such a rubric is refused.
    missing = {s.name for s in specs if painted[s.key] is None}
    assert missing == (set() if preset == "v2" else {"adherence"})
    assert (rubric_total(painted, specs) is None) == bool(missing)


def spec_of(preset: str, name: str):
    return next(s for s in signal_specs(PRESETS[preset]["signals"]) if s.name == name)


def question_of(spec):
    """What a signal asks a judge: its kind's question, with its parameters."""
    return KINDS[spec.kind].question, spec.params


def asked(preset, name):
    return question_of(spec_of(preset, name))


class TestCannotAnswer:
    """Which questions a backend can never answer, said before any scoring."""

    def test_the_base_backend_answers_nothing_and_gates_need_no_judge(self):
        backend = JudgeBackend()
        assert "gives no preference score" in backend.cannot_answer(*asked("v2", "preference"))
        assert "does not compare" in backend.cannot_answer(*asked("v2", "pairwise"))
        assert "does not rate pictures on depth" in backend.cannot_answer(*asked("v1", "depth"))
        assert backend.cannot_answer(*asked("v2", "gate")) is None
        assert backend.cannot_answer(*asked("v2", "length")) is None

    def test_a_vision_judge_answers_every_question(self):
        vision = OpenAICompatibleJudge(base_url="http://127.0.0.1:9/v1", model="m")
        for preset in ("v1", "v2"):
            for spec in signal_specs(PRESETS[preset]["signals"]):
                assert vision.cannot_answer(*question_of(spec)) is None, spec.name

    def test_hpsv3_scores_and_compares_but_rates_nothing(self):
        hps = HPSv3Judge("http://127.0.0.1:9")
        assert hps.cannot_answer(*asked("v2", "preference")) is None
        assert hps.cannot_answer(*asked("v2", "pairwise")) is None
        reason = hps.cannot_answer(*asked("v1", "beauty"))
        assert "no criteria" in reason and "vision judge" in reason

    @pytest.mark.django_db
    def test_the_cache_asks_the_judge_it_holds(self):
        assert "no criteria" in CachedJudge(HPSv3Judge("http://127.0.0.1:9")).cannot_answer(
            *asked("v1", "adherence"))

    @pytest.mark.django_db
    def test_the_local_model_rates_every_criterion_but_adherence(self, media):
        lab_world()
        local = LocalRewardModelJudge()
        reason = local.cannot_answer(*asked("v1", "adherence"))
        assert "never sees the prompt" in reason and "vision judge" in reason
        for name in ("preference", "recognisability", "beauty", "technique", "depth"):
            assert local.cannot_answer(*asked("v1", name)) is None, name


@pytest.mark.django_db
class TestUnanswerable:
    def test_without_a_reward_model_the_local_judge_answers_no_picture_signal(self, media):
        world = lab_world(count=6, train=False)
        local = Judge.objects.get(name="local")
        context = signal_context_for(judge=local, scorer=local, snapshot=world.snapshot)
        assert context.judge is None and context.scorer is None
        found = signals_unanswerable(signal_specs(PRESETS["v2"]["signals"]), context)
        assert [(f["name"], f["weight"]) for f in found] == [("preference", 0.30),
                                                              ("pairwise", 0.60)]
        for entry in found:
            assert "no active reward model: train one" in entry["reason"]
        assert any("no active reward model" in notice for notice in context.notices)

    def test_pairwise_needs_a_snapshot_with_references(self, media):
        world = lab_world()
        local = Judge.objects.get(name="local")
        pairwise = spec_of("v2", "pairwise")
        assert signal_problem(pairwise, signal_context_for(
            judge=local, scorer=local, snapshot=world.snapshot)) is None
        assert "choose a pool snapshot" in signal_problem(pairwise, signal_context_for(
            judge=local, scorer=local, snapshot=None))
        empty = PoolSnapshot.objects.create(name="empty", rule={}, counts={})
        assert "'empty' holds no references" in signal_problem(pairwise, signal_context_for(
            judge=local, scorer=local, snapshot=empty))

    def test_v1_with_the_local_model_cannot_answer_adherence_alone(self, media):
        world = lab_world()
        local = Judge.objects.get(name="local")
        context = signal_context_for(judge=local, scorer=local, snapshot=world.snapshot)
        v1 = signal_specs(PRESETS["v1"]["signals"])
        assert [f["name"] for f in signals_unanswerable(v1, context)] == ["adherence"]
        assert signals_unanswerable(signal_specs(PRESETS["v2"]["signals"]), context) == []

    def test_a_signal_of_weight_0_is_never_a_problem(self):
        context = SignalContext(judge=None, scorer=None)
        specs = signal_specs([{"name": "gate", "kind": "gate", "weight": 1},
                              {"name": "watch", "kind": "preference", "weight": 0}])
        assert signals_unanswerable(specs, context) == []
        assert "no scorer is configured" in signal_problem(specs[1], context)
