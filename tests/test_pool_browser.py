"""The curation page in Chromium: a demo-sized pool fits in about two screens
(it ran to 4,860 px before its subjects folded and its warnings merged)."""
from __future__ import annotations

import pytest

from pool.subjects import PAINTER_KEYWORDS
from tests.browser import logged_in_context
from tests.pool_data import grades_give, pool_renders_create
from tests.rating_data import curator_create

VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture
def demo_pool(media, transactional_db):
    """Like the demo the issue saw: 12 subjects graded, love in 5 of them (8 each)."""
    start = 0
    for index, words in enumerate(PAINTER_KEYWORDS.values()):
        renders = pool_renders_create(8 if index < 5 else 1, prompt=f"a {words[0]}",
                                      start=start)
        start += len(renders)
        for render in renders:
            grades_give(render, "love" if index < 5 else "nope")


def test_a_demo_sized_pool_fits_in_about_two_screens(demo_pool, live_server, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with logged_in_context(live_server, curator_create("boss", staff=True),
                           viewport=VIEWPORT) as context:
        page = context.new_page()
        page.goto(f"{live_server.url}/pool/")
        assert page.locator("details.pool-subject").count() == 5
        assert page.locator(".pool-thin-line").count() == 1
        height = page.evaluate("document.documentElement.scrollHeight")
        print(f"curation page height: {height} px at {VIEWPORT}")
        assert height <= 2.1 * VIEWPORT["height"], height  # 1,821 px when written
