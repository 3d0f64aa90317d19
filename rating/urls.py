from django.urls import path

from . import agreement_views, compare_views, export_views, views

app_name = "rating"
urlpatterns = [
    # Grading (rating/views.py)
    path("", views.grade, name="grade"),
    path("act/", views.act, name="act"),
    path("next/", views.next_renders, name="next"),
    path("progress/", views.progress, name="progress"),
    path("renders/<int:pk>/code/", views.render_code, name="render_code"),
    path("skips/clear/", views.skips_clear, name="skips_clear"),
    # Comparing pairs (rating/compare_views.py)
    path("compare/", compare_views.compare, name="compare"),
    path("compare/act/", compare_views.compare_act, name="compare_act"),
    path("compare/next/", compare_views.compare_next, name="compare_next"),
    path("agreement/", agreement_views.agreement, name="agreement"),
    path("export/grades.jsonl", export_views.export_jsonl, name="export_jsonl"),
    path("export/dataset.zip", export_views.export_dataset, name="export_dataset"),
    path("export/preferences.zip", export_views.export_preferences,
         name="export_preferences"),
    path("export/comparisons.jsonl", export_views.export_comparisons,
         name="export_comparisons"),
]
