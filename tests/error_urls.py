"""The site's URL conf and one view that fails, for the error-page tests."""
from django.urls import path

from paintrl_site.urls import urlpatterns as site_patterns


def boom(request):
    raise RuntimeError("a view that fails")


urlpatterns = [*site_patterns, path("boom/", boom)]
