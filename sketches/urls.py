from django.urls import path

from . import editor_views, views

app_name = "sketches"
urlpatterns = [
    path("renders/<int:pk>/", views.render_detail, name="render_detail"),
    path("renders/<int:pk>/png/", views.render_png, name="render_png"),
    path("renders/<int:pk>/calls.json", views.render_calls, name="render_calls"),
    path("<int:pk>/edit/", editor_views.sketch_editor, name="edit"),
    path("import/", views.import_upload, name="import_upload"),
    path("import/<int:pk>/", views.import_job, name="import_job"),
]
