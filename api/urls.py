"""/api/v1/ (the API: token authentication, its own 401s, no CSRF: a token
is not sent by a browser on its own) and /api/tokens/ (the page where a
user makes and revokes their tokens, behind the site's login like any page)."""
from django.urls import path, re_path

from . import views
from .api import api, root
from .errors import method_in_shape, not_found_anywhere


def api_urls():
    """The API's URL conf, each view marked for LoginRequiredMiddleware as
    not needing a session: the API answers an anonymous caller 401 itself
    (a redirect to a login form would be no answer for a script). A 405 and
    an unknown path answer in the API's shape (api.errors), not as pages."""
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        if pattern.name == "api-root":  # ninja's is a redirect to the docs page, which is off
            pattern.callback = root
        else:
            pattern.callback = method_in_shape(pattern.callback)
        pattern.callback.login_required = False
    not_found_anywhere.login_required = False
    patterns = [*patterns, re_path(r"^.*$", not_found_anywhere, name="api-not-found")]
    return patterns, app_name, namespace


urlpatterns = [
    path("v1/", api_urls()),
    path("tokens/", views.tokens_page, name="api_tokens"),
    path("tokens/revoke/", views.revoke, name="api_token_revoke"),
]
