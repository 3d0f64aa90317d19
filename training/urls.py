from django.urls import include, path

from .calibration import views as calibration
from .external import views as external
from .lab import views as lab

app_name = "training"
urlpatterns = [
    path("lab/", lab.lab, name="lab"),
    path("lab/replays/<int:pk>/", lab.replay_detail, name="replay"),
    path("lab/replays/<int:pk>/cancel/", lab.replay_stop, name="replay_cancel"),
    path("lab/judges/<int:pk>/agreement/", lab.judge_agreement, name="judge_agreement"),
    path("calibrate/", calibration.calibrate, name="calibrate"),
    path("calibrations/<int:pk>/cancel/", calibration.calibration_stop,
         name="calibration_cancel"),
    path("snapshots/<int:pk>/calibrations/", calibration.snapshot_calibrations,
         name="snapshot_calibrations"),
    path("snapshots/<int:pk>/derive/", calibration.snapshot_derive, name="snapshot_derive"),
    path("runs/", include("training.runs.urls")),
    path("external-runs/<slug:name>/", external.external_run_detail, name="external_run"),
]
