"""The grading page in the real Chromium against a live server: grading by
keyboard, undo, a change from the history strip, a skip, saving through a
network outage, and the page without JavaScript. The database is checked
after every step, once the page says the step is saved."""
from __future__ import annotations

import re
from urllib.parse import parse_qs

import pytest
from django.core.cache import cache
from django.db import connections
from django.test import Client

from rating import selectors, services
from rating.models import Claim, Comparison, Grade, GradeChange, GradeReceipt, PairClaim, Skip
from sketches.models import Render
from tests.chromium import chromium_path
from tests.rating_data import curator_create, renders_create

KEYS = {"1": "love", "2": "okay", "3": "nope", "l": "love", "o": "okay", "n": "nope"}
# Long enough for a busy two-core machine; every wait ends as soon as the page is ready.
WAIT_MS = 15000


@pytest.fixture
def curator(transactional_db):
    return curator_create("alice")


@pytest.fixture
def browser(media, live_server, curator, monkeypatch):
    """Chromium logged in as the curator. Playwright's sync API runs an event
    loop in this thread, hence DJANGO_ALLOW_ASYNC_UNSAFE for the ORM checks."""
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    client = Client()
    client.force_login(curator)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), headless=True)

        def new_context(**options):
            context = chromium.new_context(viewport={"width": 1100, "height": 900}, **options)
            context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                                  "url": live_server.url}])
            context.set_default_timeout(WAIT_MS)
            return context

        yield new_context
        chromium.close()
        # The ORM checks ran while Playwright's loop was current, on a connection of
        # their own: close it, or PostgreSQL refuses to drop the test database.
        connections.close_all()


class GradingPage:
    """The page as a curator sees it, with waits on what the page says."""

    def __init__(self, page, url: str):
        from playwright.sync_api import expect

        self.page, self.expect = page, expect
        page.goto(url)
        expect(page.locator("#grading.js")).to_be_attached()
        self.stage = page.locator("#stage")
        self.status = page.locator("#save-status")

    @property
    def shown(self) -> int:
        value = self.stage.get_attribute("data-render")
        return int(value) if value else 0

    def press(self, key: str) -> None:
        before = self.shown
        self.page.keyboard.press(key)
        if key not in ("c", "?"):
            self.expect(self.stage).not_to_have_attribute("data-render", str(before))

    def wait_saved(self, count: int) -> None:
        self.expect(self.status).to_have_attribute("data-saved", str(count))
        self.expect(self.status).to_have_attribute("data-pending", "0")

    def image_painted(self) -> bool:
        return self.page.locator("#stage img").evaluate(
            "img => img.complete && img.naturalWidth > 0")


class TestGradingByKeyboard:
    def test_grade_twenty_undo_two_change_one_skip_one(self, browser, live_server, curator):
        renders_create(25)
        page = GradingPage(browser().new_page(), f"{live_server.url}/rate/")
        keys = list(KEYS)
        graded: list[tuple[int, str]] = []
        saved = 0

        for i in range(20):
            render_id, key = page.shown, keys[i % len(keys)]
            assert render_id and page.image_painted()
            assert render_id not in [r for r, _ in graded]
            page.press(key)
            saved += 1
            page.wait_saved(saved)
            graded.append((render_id, KEYS[key]))
            grade = Grade.objects.get(render_id=render_id, curator=curator)
            assert grade.value == KEYS[key] and grade.shown_ms is not None
            assert Grade.objects.count() == i + 1
        assert Grade.objects.values("render").distinct().count() == 20

        # Undo twice: the last two grades are withdrawn, newest first, and each
        # render comes back on screen, held for this curator.
        for step, (render_id, _) in enumerate(reversed(graded[-2:]), start=1):
            page.press("u")
            assert page.shown == render_id
            saved += 1
            page.wait_saved(saved)
            assert not Grade.objects.filter(render_id=render_id).exists()
            assert Grade.objects.count() == 20 - step
            assert Claim.objects.filter(render_id=render_id, curator=curator).exists()
        on_screen = page.shown
        assert on_screen == graded[-2][0]

        # Change one from the history strip: the render on screen stays.
        changed_id, old_value = graded[-3]
        new_value = "nope" if old_value != "nope" else "love"
        page.page.locator(f'#history-strip .history-tile[data-render="{changed_id}"] '
                          f'button[value="{new_value}"]').click()
        saved += 1
        page.wait_saved(saved)
        assert Grade.objects.get(render_id=changed_id).value == new_value
        assert GradeChange.objects.filter(grade__render_id=changed_id, previous=old_value,
                                          value=new_value).exists()
        assert page.shown == on_screen and Grade.objects.count() == 18

        # Skip one: it leaves the queue without a grade, and its claim goes back.
        page.press("s")
        saved += 1
        page.wait_saved(saved)
        assert Skip.objects.filter(render_id=on_screen, curator=curator).exists()
        assert not Grade.objects.filter(render_id=on_screen).exists()
        assert not Claim.objects.filter(render_id=on_screen).exists()
        assert page.shown == graded[-1][0]  # the other undone render, waiting next
        assert Grade.objects.count() == 18
        assert Grade.objects.values("render").distinct().count() == 18
        # htmx refreshed the progress figures from the server after the saves.
        page.expect(page.page.locator("[data-progress=mine]")).to_have_text("18")

    def test_code_and_keys_on_demand(self, browser, live_server):
        renders_create(2)
        page = GradingPage(browser().new_page(), f"{live_server.url}/rate/")
        code = page.page.locator("#code-card")
        page.expect(code).to_be_hidden()
        page.press("c")
        first_line = Render.objects.get(pk=page.shown).sketch.code.splitlines()[0]
        page.expect(code).to_contain_text(first_line)
        page.press("1")  # the panel follows the render on screen
        first_line = Render.objects.get(pk=page.shown).sketch.code.splitlines()[0]
        page.expect(code).to_contain_text(first_line)
        page.press("?")
        page.expect(page.page.locator("#keys-help")).to_have_attribute("open", "")


class TestNothingLeft:
    """An emptied queue shows the empty state alone: no prompt, buttons or code left over."""

    def leftovers_hidden(self, page: GradingPage) -> None:
        locate = page.page.locator
        page.expect(locate("#queue-empty")).to_be_visible()
        for selector in ("#stage-prompt", "#stage-meta", "#grade-actions", "#grade-form button",
                         "#code-toggle", "#code-card"):
            page.expect(locate(selector).first).to_be_hidden()

    def test_grading_the_last_render_leaves_only_the_empty_state(self, browser, live_server,
                                                                  curator):
        renders_create(1)
        page = GradingPage(browser().new_page(), f"{live_server.url}/rate/")
        page.press("c")  # the code panel is open when the last render goes
        page.expect(page.page.locator("#code-card")).to_be_visible()
        page.press("1")
        page.wait_saved(1)
        self.leftovers_hidden(page)
        page.page.keyboard.press("c")  # no render, no code panel
        page.page.keyboard.press("2")  # and no grade
        self.leftovers_hidden(page)
        assert Grade.objects.count() == 1

    def test_an_empty_queue_on_arrival(self, browser, live_server):
        page = GradingPage(browser().new_page(), f"{live_server.url}/rate/")
        self.leftovers_hidden(page)
        page.page.keyboard.press("c")
        self.leftovers_hidden(page)
        page.expect(page.page.locator("#code-card")).to_be_empty()


class TestSavingNeverLosesAGrade:
    def test_grades_made_offline_are_kept_and_sent_on_the_next_visit(self, browser, live_server,
                                                                      curator):
        renders_create(6)
        context = browser()
        page = GradingPage(context.new_page(), f"{live_server.url}/rate/")
        first = page.shown
        context.set_offline(True)
        page.press("1")
        second = page.shown
        page.press("3")
        # The next renders were preloaded: grading went on without the network.
        page.expect(page.status).to_have_class("save-status is-retrying")
        page.expect(page.status).to_have_attribute("data-pending", "2")
        assert not Grade.objects.exists()
        page.page.close()  # the tab is closed before the network comes back
        context.set_offline(False)

        again = GradingPage(context.new_page(), f"{live_server.url}/rate/")
        again.wait_saved(2)
        assert dict(Grade.objects.values_list("render_id", "value")) == {
            first: "love", second: "nope"}
        assert again.shown not in (first, second)

    def test_a_network_outage_is_shown_then_retried(self, browser, live_server):
        renders_create(3)
        context = browser()
        page = GradingPage(context.new_page(), f"{live_server.url}/rate/")
        shown = page.shown
        context.set_offline(True)
        page.press("2")
        page.expect(page.status).to_contain_text("Not saved yet")
        context.set_offline(False)  # the page's "online" listener retries at once
        page.wait_saved(1)
        assert Grade.objects.get().render_id == shown

    def test_an_answer_lost_after_the_grade_was_saved_is_retried_with_its_key(
            self, browser, live_server):
        """The server saves the grade, its answer never reaches the page: the
        outbox sends the grade again with the same key, and it is saved once."""
        renders_create(3)
        context = browser()
        page = GradingPage(context.new_page(), f"{live_server.url}/rate/")
        shown, bodies = page.shown, []

        def lose_the_first_answer(route):
            bodies.append(parse_qs(route.request.post_data))
            if len(bodies) == 1:
                route.fetch()  # the server saves the grade...
                route.abort()  # ...and the page hears nothing back
            else:
                route.continue_()

        page.page.route(re.compile(r"/rate/act/"), lose_the_first_answer)
        page.press("1")
        page.wait_saved(1)
        assert len(bodies) == 2 and bodies[0]["key"] == bodies[1]["key"], bodies
        assert Grade.objects.get().render_id == shown and GradeChange.objects.count() == 1
        assert [GradeReceipt.objects.get().key] == bodies[0]["key"]


class TestWithoutJavaScript:
    def test_the_plain_forms_grade_and_move_on(self, browser, live_server, curator):
        renders = renders_create(2)
        page = browser(java_script_enabled=False).new_page()
        page.goto(f"{live_server.url}/rate/")
        assert page.locator("#stage").get_attribute("data-render") == str(renders[1].pk)
        page.locator("#grade-form button[value=okay]").click()
        page.wait_for_url("**/rate/")
        assert Grade.objects.get(curator=curator).render_id == renders[1].pk
        assert page.locator("#stage").get_attribute("data-render") == str(renders[0].pk)
        assert Grade.objects.get().shown_ms is not None


class TestGuidelines:
    @pytest.fixture
    def guidelines(self, curator):
        def write(text: str) -> None:
            services.grading_settings_update(overlap=None, guidelines=text, updated_by=None)

        cache.delete(selectors.GRADING_SETTINGS_CACHE_KEY)
        yield write
        cache.delete(selectors.GRADING_SETTINGS_CACHE_KEY)

    def test_g_toggles_them_and_they_take_no_keys(self, browser, live_server, guidelines):
        guidelines("Love bold shapes.")
        renders_create(2)
        page = GradingPage(browser().new_page(), f"{live_server.url}/rate/")
        panel = page.page.locator("#guidelines")
        page.expect(panel).to_contain_text("Love bold shapes.")
        page.expect(panel).to_have_attribute("open", "")
        page.page.keyboard.press("g")
        page.expect(panel).not_to_have_attribute("open", "")
        page.page.locator("#guidelines summary").click()  # a click opens it, and takes no keys
        page.expect(panel).to_have_attribute("open", "")
        page.press("1")
        page.wait_saved(1)
        page.page.keyboard.press("Tab")
        assert page.page.evaluate("document.activeElement.closest('#guidelines')") is None

    def test_without_javascript_they_are_shown(self, browser, live_server, guidelines):
        guidelines("Nope: blank canvases.")
        renders_create(1)
        page = browser(java_script_enabled=False).new_page()
        page.goto(f"{live_server.url}/rate/")
        assert page.locator("#guidelines").is_visible()
        assert "Nope: blank canvases." in page.locator("#guidelines").inner_text()


class ComparingPage:
    """The comparing page as a curator sees it, with waits on what it says."""

    def __init__(self, page, url: str):
        from playwright.sync_api import expect

        self.page, self.expect = page, expect
        page.goto(url)
        expect(page.locator("#comparing.js")).to_be_attached()
        self.stage = page.locator("#pair-stage")
        self.status = page.locator("#save-status")

    @property
    def shown(self) -> tuple[int, int]:
        """The pair on screen as (left, right) render ids; (0, 0) when none."""
        value = self.stage.get_attribute("data-pair")
        return tuple(map(int, value.split("-"))) if value else (0, 0)

    def press(self, key: str) -> None:
        before = self.stage.get_attribute("data-pair")
        self.page.keyboard.press(key)
        self.expect(self.stage).not_to_have_attribute("data-pair", before)

    def wait_saved(self, count: int) -> None:
        self.expect(self.status).to_have_attribute("data-saved", str(count))
        self.expect(self.status).to_have_attribute("data-pending", "0")

    def images_painted(self) -> bool:
        return self.page.locator("#pair-stage img").evaluate_all(
            "imgs => imgs.length === 2 && imgs.every(i => i.complete && i.naturalWidth > 0)")


class TestComparingByKeyboard:
    KEYS = {"ArrowLeft": "left", "1": "left", "ArrowRight": "right", "2": "right", "t": "tie",
            "0": "tie", "s": "skip"}

    def test_compare_by_every_key_then_undo_by_u_and_backspace(self, browser, live_server,
                                                               curator):
        renders_create(6, prompt="a tulip", same_prompt=True)  # 15 pairs
        page = ComparingPage(browser().new_page(), f"{live_server.url}/rate/compare/")
        done: list[tuple[tuple[int, int], str]] = []
        for saved, (key, choice) in enumerate(self.KEYS.items(), start=1):
            pair = page.shown
            assert pair != (0, 0) and page.images_painted()
            assert pair not in [p for p, _ in done]
            page.press(key)
            page.wait_saved(saved)
            done.append((pair, choice))
            comparison = Comparison.objects.get(curator=curator, left_id=pair[0],
                                                right_id=pair[1])
            assert comparison.choice == choice and comparison.shown_ms is not None
        assert Comparison.objects.count() == len(self.KEYS)

        # Undo twice, by u then Backspace: the last two are withdrawn, newest
        # first, and each pair comes back on screen on the sides it had.
        saved = len(self.KEYS)
        for step, key in enumerate(("u", "Backspace"), start=1):
            pair = done[-step][0]
            page.press(key)
            assert page.shown == pair
            saved += 1
            page.wait_saved(saved)
            assert not Comparison.objects.filter(left_id=pair[0], right_id=pair[1]).exists()
            assert PairClaim.objects.filter(curator=curator, left_id=pair[0],
                                            right_id=pair[1]).exists()
        assert Comparison.objects.count() == len(self.KEYS) - 2
        page.press("2")  # compare the pair brought back once more
        page.wait_saved(saved + 1)
        assert Comparison.objects.get(left_id=done[-2][0][0],
                                      right_id=done[-2][0][1]).choice == "right"

    def test_choices_made_offline_are_sent_when_the_network_returns(self, browser, live_server,
                                                                    curator):
        renders_create(4, prompt="a tulip", same_prompt=True)
        context = browser()
        page = ComparingPage(context.new_page(), f"{live_server.url}/rate/compare/")
        first = page.shown
        context.set_offline(True)
        page.press("ArrowLeft")
        page.expect(page.status).to_contain_text("Not saved yet")
        assert not Comparison.objects.exists()
        context.set_offline(False)
        page.wait_saved(1)
        assert Comparison.objects.get().winner_id == first[0]

    def test_without_javascript_the_plain_form_compares(self, browser, live_server, curator):
        renders_create(3, prompt="a tulip", same_prompt=True)
        page = browser(java_script_enabled=False).new_page()
        page.goto(f"{live_server.url}/rate/compare/")
        left, right = map(int, page.locator("#pair-stage").get_attribute("data-pair").split("-"))
        page.locator("#compare-form button[value=tie]").click()
        page.wait_for_url("**/rate/compare/")
        comparison = Comparison.objects.get(curator=curator)
        assert (comparison.left_id, comparison.right_id, comparison.choice) == (left, right,
                                                                                 "tie")
        assert page.locator("#pair-stage").get_attribute("data-pair") != f"{left}-{right}"
