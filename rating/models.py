from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from sketches.models import Render


class Grade(models.Model):
    """One curator's verdict on one render. Changing it keeps the old value in
    GradeChange, so nothing a curator said is lost."""

    class Value(models.TextChoices):
        LOVE = "love", "Love"
        OKAY = "okay", "Okay"
        NOPE = "nope", "Nope"

    class Source(models.TextChoices):
        APP = "app", "Graded in the app"
        IMPORT = "import", "Imported"
        # The simulated curator (pool.reward.simulated) for CI and the demo,
        # where no human grades exist; never shown as a human's grade.
        SIMULATED = "simulated", "Simulated curator"

    # Ordinal position, for agreement statistics and reward-model training.
    ORDINAL = {Value.NOPE: 0, Value.OKAY: 1, Value.LOVE: 2}

    render = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="grades")
    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="grades")
    value = models.CharField(max_length=8, choices=Value.choices)
    shown_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="How long the render was on screen before the grade.")
    # Indexed: "are there human grades?" is asked on the pool page and by
    # every reward-model and agreement read.
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.APP,
                              db_index=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated"]
        constraints = [
            models.UniqueConstraint(fields=["render", "curator"], name="one_grade_per_curator"),
        ]

    def __str__(self) -> str:
        return f"{self.curator} graded render {self.render_id} {self.value}"


class GradeChange(models.Model):
    """The history of a grade: every value it had, who set it and when."""

    grade = models.ForeignKey(Grade, on_delete=models.CASCADE, related_name="changes")
    previous = models.CharField(max_length=8, choices=Grade.Value.choices, blank=True)
    value = models.CharField(max_length=8, choices=Grade.Value.choices)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                   related_name="+")
    changed = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed"]


class GradeReceipt(models.Model):
    """A grade request already applied, by the key its client gave it (the
    grading page's outbox, a script): a retry after a timeout finds it and
    changes nothing, so an old retry never overwrites a newer grade and a
    request is never counted twice."""

    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="+")
    key = models.CharField(max_length=64)
    render = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="+")
    value = models.CharField(max_length=8, choices=Grade.Value.choices)
    previous = models.CharField(max_length=8, choices=Grade.Value.choices, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["curator", "key"], name="one_receipt_per_key"),
        ]


class Claim(models.Model):
    """A render held for one curator: on their screen or in their browser's
    queue of upcoming renders. While the claim is live, the render counts as
    taken towards the overlap setting, so no other curator is handed it beyond
    that; a claim the curator abandons lapses at `expires`. Grading, skipping
    or releasing the render deletes the claim."""

    render = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="claims")
    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="claims")
    expires = models.DateTimeField(db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Claim order is queue order: the page shows a curator's claims oldest first.
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["render", "curator"], name="one_claim_per_curator"),
        ]

    def __str__(self) -> str:
        return f"render {self.render_id} held for {self.curator} until {self.expires:%H:%M:%S}"


class Skip(models.Model):
    """A render a curator passed over: it leaves their queue (and goes back to
    everyone else's) until they clear their skips."""

    render = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="skips")
    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="skips")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["render", "curator"], name="one_skip_per_curator"),
        ]

    def __str__(self) -> str:
        return f"{self.curator} skipped render {self.render_id}"


class GradingSettings(models.Model):
    """The grading settings staff change from the site: one row (pk 1), made on
    first save. Read through rating.selectors.grading_settings(), written
    through rating.services.grading_settings_update()."""

    SINGLETON_PK = 1

    overlap = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)],
        help_text="How many curators grade each render. Empty: PAINTRL_GRADE_OVERLAP.")
    compare_overlap = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)],
        help_text="How many curators compare each pair of renders. "
                  "Empty: PAINTRL_COMPARE_OVERLAP.")
    guidelines = models.TextField(
        blank=True, help_text="Shown to curators beside the picture on the grading page. "
                              "Plain text; blank lines separate paragraphs.")
    updated = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+")

    class Meta:
        verbose_name = verbose_name_plural = "grading settings"
        constraints = [
            models.CheckConstraint(condition=models.Q(id=1), name="grading_settings_one_row"),
        ]

    def __str__(self) -> str:
        return "Grading settings"


class Comparison(models.Model):
    """One curator's judgement of two renders of one prompt, shown side by
    side. `left` and `right` are the sides as shown (the queue draws them at
    random), so a taste for one side of the screen shows in the data. A skip
    is kept too: it takes the pair out of that curator's queue, judges
    nothing, and takes no overlap seat."""

    class Choice(models.TextChoices):
        LEFT = "left", "Left"
        RIGHT = "right", "Right"
        TIE = "tie", "Tie"
        SKIP = "skip", "Skip"

    class Source(models.TextChoices):
        APP = "app", "Compared in the app"
        IMPORT = "import", "Imported"

    # The choices that say something about the two pictures.
    JUDGEMENTS = (Choice.LEFT, Choice.RIGHT, Choice.TIE)

    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="comparisons")
    left = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="+")
    right = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="+")
    # The prompt both renders answer, as it read when they were compared.
    prompt = models.TextField(blank=True)
    choice = models.CharField(max_length=8, choices=Choice.choices)
    shown_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="How long the pair was on screen before the choice.")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.APP)
    # Not auto_now_add: an import keeps the time the comparison was made.
    created = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            # One verdict per curator and pair, whichever side each render was on.
            models.UniqueConstraint(models.F("curator"), Least("left", "right"),
                                    Greatest("left", "right"),
                                    name="one_comparison_per_curator_pair"),
            models.CheckConstraint(condition=~models.Q(left=models.F("right")),
                                   name="comparison_of_two_renders"),
        ]

    def __str__(self) -> str:
        return f"{self.curator} compared renders {self.left_id} | {self.right_id}: {self.choice}"

    @property
    def winner_id(self) -> int | None:
        """The render preferred, or None for a tie or a skip."""
        return {self.Choice.LEFT: self.left_id, self.Choice.RIGHT: self.right_id}.get(self.choice)


class PairClaim(models.Model):
    """A pair held for one curator (on screen or preloaded), with the sides it
    will be shown on. Like Claim for single renders: while live it takes an
    overlap seat, so no more curators than the overlap are handed the pair;
    comparing, skipping or undoing deletes or renews it, and an abandoned one
    lapses at `expires`."""

    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="pair_claims")
    left = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="+")
    right = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="+")
    expires = models.DateTimeField(db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]  # claim order is the order the page shows the pairs
        constraints = [
            models.UniqueConstraint(models.F("curator"), Least("left", "right"),
                                    Greatest("left", "right"), name="one_pair_claim_per_curator"),
        ]

    def __str__(self) -> str:
        return f"renders {self.left_id} | {self.right_id} held for {self.curator}"
