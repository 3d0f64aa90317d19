"""The editor's preview status in Chromium counts with the right plural:
"1 brush call", "7 brush calls" (frames and problems are counted the same way)."""
from __future__ import annotations

import pytest

# The editor's own browser fixtures and helpers (tests/test_editor.py).
from tests.test_editor import (  # noqa: F401 (fixtures used by name)
    browser_context,
    curator,
    edit_url,
    parent,
    set_code,
    wait_for_preview,
)

ONE_CALL = """function setup() {
  createCanvas(120, 100, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#2f2a26", 1.2);
  line(-40, -30, 40, 30);
}
"""


@pytest.mark.django_db(transaction=True)
class TestPreviewCounts:
    def test_one_brush_call_is_singular(self, browser_context,  # noqa: F811
                                        live_server, parent):  # noqa: F811
        sketch, render = parent
        page = browser_context.new_page()
        page.goto(live_server.url + edit_url(sketch, render))
        wait_for_preview(page, "200×160")
        several = page.inner_text("#preview-status")
        assert "7 brush calls" in several, several
        set_code(page, ONE_CALL)
        wait_for_preview(page, "120×100")
        status = page.inner_text("#preview-status")
        assert "1 brush call," in status and "1 brush calls" not in status, status
