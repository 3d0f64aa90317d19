"""training.launch: every launched job goes through one module, and the two
kinds with a draft share one abstract model (training.models.LaunchedJob)
rather than each declaring the draft's fields."""
from __future__ import annotations

import pytest

from training.launch import job_launch
from training.models import Calibration, PromptOptimisation, TrainingRun
from training.models.base import LaunchedJob


def test_the_kinds_with_a_draft_share_its_fields_and_states():
    for model in (TrainingRun, PromptOptimisation):
        assert issubclass(model, LaunchedJob)
        assert model.Status is LaunchedJob.Status
        for name in ("name", "base_model", "status", "launched_config", "dropped_signals",
                     "created_by"):
            assert (model._meta.get_field(name).deconstruct()[1:]
                    == LaunchedJob._meta.get_field(name).deconstruct()[1:]), (model, name)
        assert model().status == "draft"


@pytest.mark.django_db
def test_a_job_with_no_draft_is_refused_with_every_reason_and_no_row():
    asked = []
    with pytest.raises(ValueError, match="the calibration cannot be launched: one; two"):
        job_launch(model=Calibration, name="the calibration", problems=["one", "two"],
                   frozen=lambda: asked.append(True) or {}, error=ValueError)
    assert not asked and not Calibration.objects.exists()  # nothing frozen, nothing made
