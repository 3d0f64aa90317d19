from django.urls import path

from . import views

app_name = "sketches"
urlpatterns = [
    path("renders/<int:pk>/", views.render_detail, name="render_detail"),
    path("renders/<int:pk>/png/", views.render_png, name="render_png"),
]
