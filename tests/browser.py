"""Chromium for the browser tests: a context logged in as a user against the
live server (the session cookie of a Django test client's force_login).

Callers set DJANGO_ALLOW_ASYNC_UNSAFE (monkeypatch.setenv): Playwright's sync
API runs an event loop in the test's thread while the test's ORM checks run."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections
from django.test import Client

from tests.chromium import chromium_path


@contextmanager
def logged_in_context(live_server, user, *, viewport: dict | None = None,
                      timeout_ms: int | None = None) -> Iterator:
    """A Playwright browser context whose requests carry `user`'s session."""
    from playwright.sync_api import sync_playwright

    client = Client()
    client.force_login(user)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), headless=True)
        try:
            context = chromium.new_context(viewport=viewport or {"width": 1200, "height": 1000})
            context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                                  "url": live_server.url}])
            if timeout_ms is not None:
                context.set_default_timeout(timeout_ms)
            yield context
        finally:
            chromium.close()
            # The test's queries ran inside Playwright's event loop, on a connection of
            # their own: close it, or PostgreSQL refuses to drop the test database.
            connections.close_all()
