"""The training-run pages, under /training/runs/ (included by training/urls.py)."""
from django.urls import path

from . import views

urlpatterns = [
    path("", views.runs, name="runs"),
    path("compare/", views.runs_compare, name="runs_compare"),
    path("<int:pk>/", views.run_detail, name="run"),
    path("<int:pk>/cancel/", views.run_stop, name="run_cancel"),
    path("<int:pk>/resume/", views.run_restart, name="run_resume"),
]
