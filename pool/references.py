"""Which references does the judge compare a rollout with?

`references_sample` draws k members of a frozen snapshot for a prompt:

1. Tiers: each of the k draws is okay with probability `okay_share`, love
   otherwise. The number of okay draws is k * okay_share, rounded down or up
   at random in proportion to the fraction, so it is exact when that is a
   whole number and right on average when it is not (k = 2 at 0.25 gives one
   okay reference in half the draws). A tier with too few members lends the
   shortfall to the other.
2. Subjects: within a tier, members of the prompt's subject come first, then
   members of the same family (another flower for "a red rose"), then the
   rest, each group in random order. So references match the prompt's
   subject when the snapshot has enough of them, and fall back otherwise.
3. No member is drawn twice in one call unless k exceeds the snapshot; then
   every member is drawn once before any is drawn again.

`among` narrows the draw to some members (the references a re-calibrating
run kept: pool.band); the rules above then apply to those.

Seeded: the same snapshot, prompt, k, okay_share and seed give the same
references in the same order (a string seed for random.Random is hashed with
SHA-512: stable across processes and machines, unlike hash())."""
from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence
from typing import NamedTuple

from .models import PoolMember, PoolSnapshot, Tier
from .subjects import subject_closeness, subject_of_prompt


def references_sample(snapshot: PoolSnapshot, *, prompt: str, k: int,
                      okay_share: float = 0.0, seed: int | str = 0,
                      among: Collection[int] | None = None) -> list[PoolMember]:
    """`k` references from `snapshot` for `prompt` (module docstring)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be a whole number of references, 0 or more; got {k!r}")
    if not 0.0 <= okay_share <= 1.0:
        raise ValueError(f"okay_share must be from 0 to 1, got {okay_share!r}")
    if k == 0:
        return []
    # Choose among (id, tier, subject) rows, then load only the chosen members:
    # a member's code can run to tens of kilobytes.
    rows = snapshot.members.order_by("pk")
    if among is not None:
        rows = rows.filter(pk__in=list(among))
    members = [_Choice(*row) for row in rows.values_list("pk", "tier", "subject")]
    if not members:
        chosen = "" if among is None else " among the references kept"
        raise ValueError(f"snapshot {snapshot.name!r} has no members{chosen} to draw from")
    rng = random.Random(f"pool-references:{snapshot.pk}:{seed}:{prompt}")
    subject = subject_of_prompt(prompt)

    okay_wanted = _okay_count(k, okay_share, rng)
    by_tier = {tier: _ranked([m for m in members if m.tier == tier], subject, rng)
               for tier in (Tier.LOVE, Tier.OKAY)}
    love_wanted = k - okay_wanted
    # Lend a short tier's missing draws to the other tier.
    okay_take = min(okay_wanted + max(0, love_wanted - len(by_tier[Tier.LOVE])),
                    len(by_tier[Tier.OKAY]))
    love_take = min(k - okay_take, len(by_tier[Tier.LOVE]))
    drawn = by_tier[Tier.LOVE][:love_take] + by_tier[Tier.OKAY][:okay_take]
    # The position of a reference must not tell its tier.
    rng.shuffle(drawn)
    while len(drawn) < k:  # k exceeds the snapshot: go round again
        again = _ranked(members, subject, rng)
        drawn.extend(again[:k - len(drawn)])
    loaded = PoolMember.objects.in_bulk([choice.pk for choice in drawn])
    return [loaded[choice.pk] for choice in drawn]


class _Choice(NamedTuple):
    pk: int
    tier: str
    subject: str


def _okay_count(k: int, okay_share: float, rng: random.Random) -> int:
    exact = k * okay_share
    whole = math.floor(exact)
    return whole + (1 if rng.random() < exact - whole else 0)


def _ranked(members: Sequence[_Choice], subject: str, rng: random.Random) -> list[_Choice]:
    """`members` shuffled, then stably ordered: same subject, same family, rest."""
    shuffled = list(members)
    rng.shuffle(shuffled)
    return sorted(shuffled, key=lambda member: subject_closeness(subject, member.subject))
