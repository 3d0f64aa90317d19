import hashlib
import uuid

from django.conf import settings
from django.db import models

from jobs.models import Job

from . import gate
from .brush_api import AUTO_BRUSH, BRUSH_CHOICE_LABELS, DEFAULT_BRUSH

# The p5.brush a render, an import or a run asks for, as a field's choices:
# (value, label) pairs of brush_api.BRUSHES (the values alone).
BRUSH_CHOICES = list(BRUSH_CHOICE_LABELS.items())


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class Sketch(models.Model):
    """A p5.brush program: the artifact people read, edit and re-render."""

    class Origin(models.TextChoices):
        IMPORTED = "imported", "Imported"
        ROLLOUT = "rollout", "Rollout"
        EDITED = "edited", "Edited"
        PROCEDURAL = "procedural", "Procedural painter"

    prompt = models.TextField(blank=True)
    code = models.TextField()
    code_sha256 = models.CharField(max_length=64, db_index=True, editable=False)
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.IMPORTED)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="edits",
        help_text="The sketch this one was edited from.",
    )
    meta = models.JSONField(
        default=dict, blank=True,
        help_text="Where the sketch came from: painter parameters, import file name.",
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "sketches"  # not Django's "sketchs"

    def save(self, *args, **kwargs):
        self.code_sha256 = code_hash(self.code)
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"Sketch {self.pk}: {self.prompt[:60] or '(no prompt)'}"


# Render.renderer_version of a render that came as a PNG (an import): no
# renderer of ours made it, so none can be said to be out of date.
IMPORTED_RENDERER = "imported"


def render_png_path(render: "Render", filename: str) -> str:
    """`render.png` for a first render; a re-render saves as `render-<tag>.png`
    and its file takes the tag, so it never lands on the old picture's name
    (a storage that overwrites, as S3 may, would replace the old file before
    the row pointing at the new one commits)."""
    return _render_file_path(render, filename, ".png")


def render_calls_path(render: "Render", filename: str) -> str:
    """The call list beside the picture, named as render_png_path names it."""
    return _render_file_path(render, filename, ".calls.json.gz")


def _render_file_path(render: "Render", filename: str, suffix: str) -> str:
    tag = filename.removesuffix(suffix).removeprefix("render")
    return (f"renders/{render.sketch_id % 1000:03d}/"
            f"{render.sketch_id}-{render.seed}-{render.pk}{tag}{suffix}")


class Render(models.Model):
    """One rendering of a sketch at a seed, with the gate's verdict."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        OK = "ok", "OK"
        REJECTED = "rejected", "Rejected"
        UNAVAILABLE = "unavailable", "Unavailable"

    sketch = models.ForeignKey(Sketch, on_delete=models.CASCADE, related_name="renders")
    seed = models.IntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING,
                              db_index=True)
    png = models.ImageField(upload_to=render_png_path, blank=True)
    # The p5.brush calls the picture was painted from (paint by construction),
    # gzipped JSON: the painting as data, to diff, replay and inspect.
    calls = models.FileField(upload_to=render_calls_path, blank=True, max_length=200)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    violations = models.JSONField(default=list, blank=True)
    violation_details = models.JSONField(default=dict, blank=True)
    js_errors = models.JSONField(default=list, blank=True)
    paint_fraction = models.FloatField(null=True, blank=True)
    brush_calls = models.PositiveIntegerField(default=0)
    brush_call_counts = models.JSONField(default=dict, blank=True)
    unknown_calls = models.JSONField(default=list, blank=True)
    frames = models.PositiveIntegerField(default=0)
    elapsed_ms = models.PositiveIntegerField(default=0)
    draw_ms = models.PositiveIntegerField(default=0)
    renderer_version = models.CharField(max_length=120, blank=True)
    # Asked for when the render was made (rendering.render_text's `brush`): the
    # render task renders with it, and a re-render again. "2" for every render
    # made before it was recorded: they all rendered with p5.brush 2.x.
    brush = models.CharField(
        max_length=4, choices=BRUSH_CHOICES, default=DEFAULT_BRUSH,
        help_text="The p5.brush version asked for: 2, 1, or auto (the version the sketch's "
                  "calls are written for).")
    brush_version = models.CharField(
        max_length=4, blank=True,
        help_text="The p5.brush version it rendered with (1 or 2); blank until rendered, and "
                  "for an imported PNG.")
    # Asked for when the render was made (an import's is longer than the
    # renderer's): the render task renders within it, and a lost render sent
    # again or a stale one re-rendered does too.
    deadline_s = models.FloatField(
        null=True, blank=True,
        help_text="The render deadline asked for, in seconds; empty: the renderer's.")
    # Written by the pool app's active reward model (apps above sketches store
    # their results here rather than being imported by it).
    taste_score = models.FloatField(null=True, blank=True, db_index=True)
    taste_model = models.CharField(max_length=40, blank=True,
                                   help_text="The reward model that gave taste_score.")
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    # Indexed: the home page counts the renders of the last minute every 3 s.
    rendered = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["sketch", "seed"])]

    @property
    def is_final(self) -> bool:
        return self.status in (self.Status.OK, self.Status.REJECTED)

    @property
    def flags(self) -> dict[str, str]:
        """What the gate flagged without rejecting (gate.flags): painted words
        where PAINTRL_PAINTED_WORDS is "flag"."""
        return gate.flags(self.violations, self.violation_details)

    def __str__(self) -> str:
        return f"Render {self.pk} of sketch {self.sketch_id} (seed {self.seed}): {self.status}"


def import_upload_path(job: "ImportJob", filename: str) -> str:
    """A generated name: the uploader's file name is never used as a path
    (only its kind, .zip or .jsonl, chosen from the content, survives)."""
    suffix = ".jsonl" if filename.lower().endswith(".jsonl") else ".zip"
    return f"imports/{uuid.uuid4().hex}{suffix}"


class ImportJob(Job):
    """An uploaded zip or JSONL file imported by a Celery task; the upload page
    polls it for progress and shows its report. Its progress is counted in
    done and total, with the live counts in `report` until the final report
    replaces them; it offers no cancel, so it has none of Job's progress and
    cancel_requested."""

    progress = None
    cancel_requested = None

    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="import_jobs")
    original_filename = models.CharField(
        max_length=255, help_text="The uploader's file name: shown, never used as a path.")
    archive = models.FileField(upload_to=import_upload_path, max_length=200)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    report = models.JSONField(default=dict, blank=True,
                              help_text="ImportReport.to_dict(): counts and per-item results.")
    brush = models.CharField(
        max_length=4, choices=BRUSH_CHOICES, default=AUTO_BRUSH,
        help_text="The p5.brush the imported sketches render with, unless a manifest line "
                  "names its own.")

    @property
    def percent(self) -> int:
        return 100 if self.is_finished else int(100 * self.done / max(self.total, 1))

    def __str__(self) -> str:
        return f"Import {self.pk} of {self.original_filename}: {self.status}"
