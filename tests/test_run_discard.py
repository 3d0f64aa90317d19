"""A resume discards what came after its checkpoint (training.runs.job.
rows_discard): the steps, rollouts and their sketches, except those a
curator graded. The PNGs go only once those rows are gone for good: a
rollback leaves every row with its file."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.db import transaction

from rating.services import curator_get_or_create, grade_record
from sketches.models import Render
from tests.run_data import run_create, steps_create
from training.models import Rollout, TrainingRun, TrainingStep
from training.runs.job import rows_discard

pytestmark = pytest.mark.django_db


class Rollback(Exception):
    pass


def png_paths(media: Path, renders) -> list[Path]:
    return [media / render.png.name for render in renders]


def test_pngs_go_after_the_commit_never_before_and_a_graded_rollout_stays(
        media, django_capture_on_commit_callbacks):
    run = run_create(status=TrainingRun.Status.FAILED)
    steps_create(run)  # steps 1 and 2, each rollout with a render and its PNG
    later = [rollout.render for rollout in Rollout.objects.filter(run=run, step=2)
             .select_related("render").order_by("pk")]
    graded = later[0]
    grade_record(render=graded, curator=curator_get_or_create(username="alice"), value="love")
    doomed = later[1:]
    assert doomed and all(path.is_file() for path in png_paths(media, later))

    with pytest.raises(Rollback), transaction.atomic():
        rows_discard(run, after_step=1)
        raise Rollback
    assert all(path.is_file() for path in png_paths(media, later))
    assert TrainingStep.objects.filter(run=run, step=2).exists()
    assert Render.objects.filter(pk__in=[r.pk for r in doomed]).count() == len(doomed)

    with django_capture_on_commit_callbacks(execute=True):
        summary = rows_discard(run, after_step=1)
        # Inside the transaction the rows are gone and the files still there.
        assert all(path.is_file() for path in png_paths(media, doomed))
    assert summary["sketches_kept"] == 1
    assert not any(path.exists() for path in png_paths(media, doomed))
    assert (media / graded.png.name).is_file()
    assert list(TrainingStep.objects.filter(run=run).values_list("step", flat=True)) == [1]
    assert not Rollout.objects.filter(run=run, step=2).exists()
    assert Render.objects.filter(pk=graded.pk).exists()
    assert not Render.objects.filter(pk__in=[r.pk for r in doomed]).exists()
