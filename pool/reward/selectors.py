"""Reads about reward models: the active one, yardsticks (disjoint.py), and
the grading queue's "most informative first" order, which reads its scores."""
from __future__ import annotations

from django.db.models import Case, F, FloatField, QuerySet, Value, When
from django.db.models.functions import Abs, Least

from pool.models import RewardModel
from sketches.models import Render

from .scoring import model_label


def reward_model_active() -> RewardModel | None:
    return RewardModel.objects.filter(active=True).first()


def score_label_active() -> str | None:
    """The Render.taste_model label of the active model's scores, for the
    comparing queue (settings.PAINTRL_PAIR_SCORE_LABEL); None while no model
    is active."""
    active = RewardModel.objects.filter(active=True).only("pk", "version").first()
    return model_label(active) if active is not None else None


def disjoint_from(reward_model: RewardModel) -> int | None:
    """The version whose training split a yardstick was kept from (None: not a yardstick)."""
    return (reward_model.config or {}).get("disjoint_from")


def yardstick_newest(reward_model: RewardModel) -> RewardModel | None:
    """The newest finished yardstick trained disjoint from `reward_model`."""
    return (RewardModel.objects.filter(status=RewardModel.Status.DONE,
                                       config__disjoint_from=reward_model.version)
            .exclude(weights="").order_by("-version").first())


def gold_newest() -> RewardModel | None:
    """The newest registered gold judge (reward/gold.py)."""
    return (RewardModel.objects.filter(role=RewardModel.Role.GOLD, status=RewardModel.Status.DONE)
            .exclude(weights="").order_by("-version").first())


def gold_shared(gold: RewardModel, reward_model: RewardModel) -> int:
    """How many sketch codes the gold judge learnt from that `reward_model`
    trained on too (any split: it saw their pictures); 0 when disjoint."""
    ids = [int(key) for part in ((reward_model.training_data or {}).get("render_ids") or {})
           .values() for key in part if str(key).isdigit()]
    codes = set(Render.objects.filter(pk__in=ids).values_list("sketch__code_sha256", flat=True))
    return len(codes & set((gold.training_data or {}).get("codes") or ()))


def informative_order(renders: QuerySet[Render]) -> QuerySet[Render] | None:
    """"Most informative first" for the grading queue
    (settings.PAINTRL_INFORMATIVE_ORDER): renders whose active-model score
    lies nearest a grade boundary (nope|okay or okay|love) first, since those
    are the grades the model is least sure of; renders it has not scored
    come last, newest first. None while no model is active, which hides the
    option."""
    active = RewardModel.objects.filter(active=True).only("pk", "version", "metrics").first()
    if active is None:
        return None
    boundaries = list((active.metrics or {}).get("boundaries", {}).values())
    if not boundaries:
        return None
    distances = [Abs(F("taste_score") - Value(float(b), output_field=FloatField()))
                 for b in boundaries]
    nearest = distances[0] if len(distances) == 1 else Least(*distances)
    # Scores from another version sit on another scale: treat them as unscored.
    uncertainty = Case(When(taste_model=model_label(active), then=nearest), default=None,
                       output_field=FloatField())
    return renders.annotate(taste_uncertainty=uncertainty).order_by(
        F("taste_uncertainty").asc(nulls_last=True), "-created", "-pk")
