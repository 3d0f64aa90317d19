from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import views

# No route serves MEDIA_ROOT: it holds uploaded archives, run checkpoints and
# reward-model weights. Pictures go through views that check who is asking
# (sketches:render_png, pool:member_png); tests/test_access.py sweeps every route.
urlpatterns = [
    path("", views.home, name="home"),
    path("jobs/", views.jobs, name="jobs"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("sketches/", include("sketches.urls")),
    path("rate/", include("rating.urls")),
    path("pool/", include("pool.urls")),
    path("training/", include("training.urls")),
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
]
