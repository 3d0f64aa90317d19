"""Which references still teach?

The pairwise signal pays a rollout its win fraction against references from
a snapshot. A reference the policy's rollouts always beat (or never beat)
gives every rollout of a group the same value, so GRPO learns nothing from
it; the replication kept only the references its policy beat 25-75 % of the
time. A calibration (training.models.Calibration) measures each member's win
rate: how often the policy's rollouts beat it, as the judge sees it.

The rules the measurement and its two uses share live here:
- `pairings`: which rollouts each member meets: up to `per_member`, those of
  its own subject first, then its family's, then the rest, as references are
  drawn for a prompt (pool.references), in a seeded order;
- `win_rates_sum`: the judge's answers summed per member (an unanswered
  comparison is left out, never counted as a loss);
- `in_band`: whether a win rate is in a band (an unmeasured one never is),
  and `rates_summary`: how many members fall below, in and above it;
- `references_kept`: the members a re-calibrating run keeps: those in the
  band, topped up when the band holds too few.

The judge itself is the training app's (training.calibration measures)."""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .subjects import subject_closeness

# The replication's band: references its policy beat 25-75 % of the time.
BAND = (0.25, 0.75)
# Comparisons each member is asked by default. A hosted judge answers 0 or 1,
# so 8 answers put a win rate within about +-0.18 (one standard error at
# 0.5), enough to tell a member the policy always beats from one in the band;
# the local judge's answers are probabilities and vary less. The cost is
# members x this many requests.
PER_MEMBER = 8


class CalibrationError(ValueError):
    """A band or a derived snapshot that cannot be made as asked; the message says why."""


@dataclass(frozen=True)
class WinRate:
    """One member's summed answers."""

    member_id: int
    asked: int
    answered: int
    wins: float

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.answered if self.answered else None


def band_problems(low: float, high: float) -> list[str]:
    """Why (low, high) is not a band of win rates; [] when it is."""
    if not (0.0 <= low <= 1.0 and 0.0 <= high <= 1.0):
        return [f"a band's ends are win rates from 0 to 1, got {low:g} and {high:g}"]
    if low >= high:
        return [f"the band's low end {low:g} must be below its high end {high:g}"]
    return []


def in_band(rate: float | None, low: float, high: float) -> bool:
    return rate is not None and low <= rate <= high


@dataclass(frozen=True)
class RatesSummary:
    """A calibration's members counted against a band."""

    members: int
    comparisons: int
    answered: int
    below: int
    inside: int
    above: int
    unanswered: int
    mean_win_rate: float | None

    def progress(self) -> dict:
        """As a finished calibration's progress records it."""
        return {"members": self.members, "comparisons": self.comparisons,
                "answered": self.answered, "in_band": self.inside,
                "mean_win_rate": self.mean_win_rate}


def rates_summary(rates: Iterable, low: float, high: float) -> RatesSummary:
    """`rates` (WinRates, or the MemberWinRate rows that store them) against [low, high]."""
    rates = list(rates)
    values = [r.win_rate for r in rates if r.win_rate is not None]
    return RatesSummary(
        members=len(rates), comparisons=sum(r.asked for r in rates),
        answered=sum(r.answered for r in rates), below=sum(v < low for v in values),
        inside=sum(in_band(v, low, high) for v in values), above=sum(v > high for v in values),
        unanswered=len(rates) - len(values),
        mean_win_rate=sum(values) / len(values) if values else None)


def pairings(members: Sequence[tuple[int, str]], subjects: Sequence[str], *, per_member: int,
             seed: int | str) -> list[tuple[int, int]]:
    """(member id, rollout index) pairs: each member of `members` ((id,
    subject) each) meets up to `per_member` of the rollouts whose subjects are
    `subjects`, nearest subject first, ties in an order seeded by `seed` and
    the member (module docstring)."""
    if per_member < 1:
        raise CalibrationError(f"each member needs at least one comparison, got {per_member}")
    out = []
    for member_id, subject in members:
        rng = random.Random(f"calibration:{seed}:{member_id}")
        order = list(range(len(subjects)))
        rng.shuffle(order)
        order.sort(key=lambda i: subject_closeness(subject, subjects[i]))
        out.extend((member_id, i) for i in order[:per_member])
    return out


def win_rates_sum(members: Sequence[int], pairs: Sequence[tuple[int, int]],
                  answers: Sequence[float | None]) -> list[WinRate]:
    """Each of `members`' WinRate from `pairs` (pairings) and the judge's
    `answers` to them: the probability that the rollout is the better painting,
    None where the judge did not answer."""
    asked = dict.fromkeys(members, 0)
    answered = dict.fromkeys(members, 0)
    wins = dict.fromkeys(members, 0.0)
    for (member_id, _), answer in zip(pairs, answers, strict=True):
        asked[member_id] += 1
        if answer is not None:
            answered[member_id] += 1
            wins[member_id] += answer
    return [WinRate(member_id=m, asked=asked[m], answered=answered[m], wins=wins[m])
            for m in members]


def references_kept(rates: Mapping[int, float | None], *, low: float, high: float,
                    least: int = 1) -> list[int]:
    """The members whose win rate is in [low, high]; when fewer than `least`
    are, topped up with those nearest the band (a member with no answer never),
    so a pairwise signal that draws `least` references still finds them.
    Sorted by member id."""
    if problems := band_problems(low, high):
        raise CalibrationError(problems[0])
    measured = {m: rate for m, rate in rates.items() if rate is not None}

    def distance(member_id: int) -> float:
        rate = measured[member_id]
        return max(low - rate, rate - high, 0.0)

    ranked = sorted(measured, key=lambda m: (distance(m), m))
    inside = [m for m in ranked if in_band(measured[m], low, high)]
    return sorted(inside if len(inside) >= least else ranked[:least])
