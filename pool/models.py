"""The reference pool and the reward model.

The pool is derived, not stored: a render is in it when the current PoolRule
says its grades resolve to love (or okay, the second tier), unless a PoolPin
says otherwise. Freezing it writes a PoolSnapshot whose members never change,
so a training run that names a snapshot can always be reproduced."""
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from jobs.models import Job
from sketches.models import Render


class Tier(models.TextChoices):
    LOVE = "love", "Love (references)"
    OKAY = "okay", "Okay (second tier)"


class PoolRule(models.Model):
    """How grades become pool membership. Staff edit it by adding a new row:
    the newest is the rule in force, earlier ones stay as the record."""

    love_share = models.FloatField(
        default=0.5,
        help_text="A render is 'love' when more than this share of its grades are love "
                  "(0.5: a majority; one grade of love is enough at overlap 1).")
    okay_tier = models.BooleanField(
        default=True, help_text="Renders that resolve to okay form a second tier.")
    min_grades = models.PositiveIntegerField(
        default=1, help_text="Renders with fewer grades than this are left out.")
    min_per_subject = models.PositiveIntegerField(
        default=5, help_text="The curation page warns where a subject has fewer references.")
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def clean(self):
        if not 0 <= self.love_share < 1:
            raise ValidationError({"love_share": f"must be at least 0 and below 1, got "
                                                 f"{self.love_share} (at 1 nothing is love)"})

    def as_dict(self) -> dict:
        return {"love_share": self.love_share, "okay_tier": self.okay_tier,
                "min_grades": self.min_grades, "min_per_subject": self.min_per_subject}

    def __str__(self) -> str:
        return f"Pool rule {self.pk}: love share > {self.love_share}, min {self.min_grades} grades"


class PoolPin(models.Model):
    """A staff decision that overrides the rule for one render."""

    class Action(models.TextChoices):
        IN = "in", "Pinned in"
        OUT = "out", "Pinned out"

    render = models.OneToOneField(Render, on_delete=models.CASCADE, related_name="pool_pin")
    action = models.CharField(max_length=3, choices=Action.choices)
    tier = models.CharField(max_length=4, choices=Tier.choices, default=Tier.LOVE,
                            help_text="The tier a render pinned in joins.")
    reason = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Render {self.render_id} {self.get_action_display().lower()}: {self.reason[:40]}"


class SnapshotImmutableError(Exception):
    """A frozen snapshot, or one of its members, was about to be changed."""


class FrozenQuerySet(models.QuerySet):
    """Bulk updates would bypass save(): refuse them too. (Deleting a render
    still nulls PoolMember.render: Django's collector writes that directly,
    and the member keeps its copied prompt, code and PNG path.)"""

    def update(self, **kwargs):
        raise SnapshotImmutableError(f"{self.model.__name__} rows are frozen: "
                                     "freeze a new snapshot instead")


class PoolSnapshot(models.Model):
    """An immutable, named copy of the pool: its members, tiers and the rule."""

    name = models.CharField(max_length=120, unique=True)
    rule = models.JSONField(help_text="PoolRule.as_dict() at the time of freezing.")
    counts = models.JSONField(default=dict, help_text="Members per tier and subject.")
    note = models.TextField(blank=True)
    derived_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="derived",
        help_text="The snapshot whose members this one kept (a calibrated snapshot).")
    derivation = models.JSONField(
        default=dict, blank=True,
        help_text="How the members were kept: the calibration, its policy and judge, the band.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    objects = FrozenQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise SnapshotImmutableError(f"snapshot {self.name!r} is frozen: "
                                         "freeze a new snapshot instead")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return self.name


class PoolMember(models.Model):
    """One render in a snapshot, with what the judge needs copied in, so later
    edits, grades or deletions elsewhere cannot change the snapshot."""

    snapshot = models.ForeignKey(PoolSnapshot, on_delete=models.CASCADE, related_name="members")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    tier = models.CharField(max_length=4, choices=Tier.choices)
    subject = models.CharField(max_length=60, blank=True, db_index=True)
    prompt = models.TextField(blank=True)
    code = models.TextField()
    seed = models.IntegerField(default=0, help_text="The render's seed: code + seed = the PNG.")
    png = models.CharField(max_length=255, help_text="Path of the PNG under MEDIA_ROOT.")
    pinned = models.BooleanField(default=False)

    objects = FrozenQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["snapshot", "render"],
                                               name="render_once_per_snapshot")]

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise SnapshotImmutableError(f"member {self.pk} of a frozen snapshot cannot change")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"{self.get_tier_display()}: {self.prompt[:60] or '(no prompt)'}"


class RenderFingerprint(models.Model):
    """A render's perceptual hash and colour layout (pool.phash), kept so the
    curation page decodes each PNG once rather than on every visit."""

    render = models.OneToOneField(Render, on_delete=models.CASCADE, primary_key=True,
                                  related_name="pool_fingerprint")
    version = models.PositiveSmallIntegerField(help_text="pool.phash.FINGERPRINT_VERSION.")
    png = models.CharField(max_length=255, help_text="The PNG that was hashed.")
    phash = models.CharField(max_length=16, help_text="64-bit DCT hash, hex.")
    layout = models.CharField(max_length=96, help_text="4x4 grid of mean RGB colours, hex.")

    def __str__(self) -> str:
        return f"Render {self.render_id}: {self.phash}"


class RewardModel(Job):
    """A trained taste scorer: one version per training job, with its metrics
    and the data it saw. One is active; it scores renders. Its progress holds
    the epoch, loss and held-out accuracy as training goes."""

    class Role(models.TextChoices):
        TRAINED = "trained", "Trained on grades"
        # Trained on the painter's tiers (reward/gold.py): scores a probe, never a run's reward.
        GOLD = "gold", "Gold judge"

    version = models.PositiveIntegerField(unique=True)
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.TRAINED)
    config = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    training_data = models.JSONField(default=dict, blank=True,
                                     help_text="Render ids per split, grade counts, a hash.")
    weights = models.FileField(upload_to="reward_models/", blank=True)
    active = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-version"]
        constraints = [models.UniqueConstraint(fields=["active"], condition=models.Q(active=True),
                                               name="one_active_reward_model")]

    def __str__(self) -> str:
        return f"Reward model v{self.version} ({self.status}{', active' if self.active else ''})"
