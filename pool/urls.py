from django.urls import path

from . import views

app_name = "pool"
urlpatterns = [
    path("", views.curate, name="curate"),
    path("pin/", views.pin, name="pin"),
    path("unpin/", views.unpin, name="unpin"),
    path("drop-duplicate/", views.drop_duplicate, name="drop_duplicate"),
    path("rule/", views.rule_edit, name="rule"),
    path("freeze/", views.freeze, name="freeze"),
    path("snapshots/<int:pk>/", views.snapshot_detail, name="snapshot"),
    path("snapshots/<int:pk>/export.zip", views.snapshot_export, name="snapshot_export"),
    path("members/<int:pk>/png/", views.member_png, name="member_png"),
]
