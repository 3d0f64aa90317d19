"""Painted words (sketches/painted_words.py): words read in the picture of a
render the gate passed are the painted_words violation, or with
PAINTRL_PAINTED_WORDS=flag a flag that the render page, the API and a run's
gallery show. Real Chromium renders: words laid with brush strokes are caught,
letter-like honest paintings (tests/sketches/letterlike/) pass."""
from __future__ import annotations

import io

import pytest
from django.test import Client
from django.urls import reverse
from PIL import Image, ImageDraw, ImageFont

from api.tokens import token_create
from sketches import gate
from sketches.conf import renderer_config
from sketches.painted_words import OCR_MAX_SIDE, read_words
from sketches.renderer import RenderPool
from sketches.renderer.config import WORDS_FLAG
from sketches.rendering import render_text
from tests.chromium import make_config
from tests.rating_data import curator_create, renders_create
from tests.sketch_files import SKETCHES_DIR, read_sketch
from training.runs.presenters import gate_report

WORD_SKETCH = "hostile/painted_words_block_letters.js"
LETTERLIKE = sorted(path.name for path in (SKETCHES_DIR / "letterlike").glob("*.js"))
DETAIL = '"BEST" at (100, 120)-(300, 180)'


def png_of(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


class TestReadWords:
    def test_words_on_a_picture_larger_than_the_ocr_reads_come_back_in_its_pixels(self):
        image = Image.new("RGB", (1200, 800), "#f6f1e8")
        ImageDraw.Draw(image).text((300, 500), "BEST PAINTING", fill="#222",
                                   font=ImageFont.load_default(size=80))
        assert max(image.size) > OCR_MAX_SIDE
        found = read_words(png_of(image))
        # (The recogniser may or may not read the space.)
        assert [w.text.replace(" ", "") for w in found.words] == ["BESTPAINTING"]
        left, top, right, bottom = found.words[0].box
        # The box is in the PNG's pixels, around where the words were drawn.
        assert 250 <= left <= 320 and 480 <= top <= 530 and right >= 800 and bottom <= 620
        assert f'"{found.words[0].text}" at ({left}, {top})' in found.describe()

    def test_two_letters_count_when_read_clearly(self):
        image = Image.new("RGB", (300, 200), "white")
        ImageDraw.Draw(image).text((90, 50), "10", fill="#222",
                                   font=ImageFont.load_default(size=90))
        assert [w.text for w in read_words(png_of(image)).words] == ["10"]

    def test_plain_paper_and_transparent_paper_hold_no_words(self):
        assert read_words(png_of(Image.new("RGB", (300, 200), "#f6f1e8"))).words == ()
        assert read_words(png_of(Image.new("RGBA", (300, 200), (0, 0, 0, 0)))).words == ()

    def test_bytes_that_are_not_an_image_are_a_clear_error(self):
        with pytest.raises(ValueError, match="not a readable image"):
            read_words(b"not a png")


class TestSetting:
    def test_flags_are_the_details_that_name_no_violation(self):
        details = {gate.BLANK_CANVAS: "empty", gate.PAINTED_WORDS: DETAIL}
        assert gate.flags([gate.BLANK_CANVAS], details) == {gate.PAINTED_WORDS: DETAIL}
        assert gate.flags([gate.BLANK_CANVAS], {gate.BLANK_CANVAS: "empty"}) == {}

    def test_words_reject_by_default_and_the_setting_makes_them_a_flag(self, settings):
        assert renderer_config().painted_words == "reject"
        settings.PAINTRL_PAINTED_WORDS = "flag"
        assert renderer_config().painted_words == "flag"

    def test_an_unknown_mode_is_refused_naming_it(self, settings):
        settings.PAINTRL_PAINTED_WORDS = "ignore"
        with pytest.raises(ValueError, match="'reject' or 'flag', got 'ignore'"):
            renderer_config()


@pytest.mark.browser
class TestRenders:
    def test_words_painted_with_brush_fills_are_rejected_with_the_words_and_box(
            self, browser_pool):
        outcome = render_text(browser_pool, read_sketch(WORD_SKETCH))
        assert outcome.status == "rejected", outcome.report()
        assert outcome.violations == [gate.PAINTED_WORDS], outcome.report()
        assert '"BEST" at (' in outcome.details[gate.PAINTED_WORDS], outcome.details
        assert outcome.ocr_ms > 0

    @pytest.mark.parametrize("name", LETTERLIKE)
    def test_a_letter_like_honest_painting_passes(self, browser_pool, name):
        outcome = render_text(browser_pool, read_sketch(f"letterlike/{name}"))
        assert outcome.status == "ok", outcome.report()
        assert outcome.details == {} and outcome.ocr_ms > 0

    def test_a_render_the_gate_rejected_is_not_read(self, browser_pool):
        outcome = render_text(browser_pool, read_sketch("hostile/text_on_canvas.js"))
        assert outcome.status == "rejected" and outcome.ocr_ms == 0, outcome.report()

    def test_flag_only_passes_the_render_and_keeps_the_words_in_its_details(self):
        with RenderPool(make_config(browsers=1, painted_words=WORDS_FLAG)) as pool:
            outcome = render_text(pool, read_sketch(WORD_SKETCH))
        assert outcome.status == "ok" and outcome.violations == [], outcome.report()
        assert '"BEST" at (' in gate.flags(outcome.violations, outcome.details)[
            gate.PAINTED_WORDS]
        # Renders made under the other mode are stale, not current.
        assert "+words-flagged" in outcome.renderer_version


@pytest.mark.django_db
class TestFlagShown:
    @pytest.fixture
    def flagged(self, media):
        [render] = renders_create(1)
        render.violation_details = {gate.PAINTED_WORDS: DETAIL}
        render.save()
        return render

    def test_on_the_render_page(self, flagged):
        client = Client()
        client.force_login(curator_create("cora"))
        content = client.get(reverse("sketches:render_detail", args=[flagged.pk])).content
        flagged_part = content.decode().split("<h2>Flagged</h2>")[1].split("</ul>")[0]
        assert "painted_words" in flagged_part and "BEST" in flagged_part

    def test_in_the_api(self, flagged):
        raw = token_create(user=curator_create("cora"), name="test")[1]
        headers = {"Authorization": f"Bearer {raw}"}
        for path in (f"/api/v1/renders/{flagged.pk}", f"/api/v1/renders/{flagged.pk}/report"):
            body = Client().get(path, headers=headers).json()
            assert body["status"] == "ok" and body["flags"] == {gate.PAINTED_WORDS: DETAIL}

    def test_in_a_runs_gallery(self, flagged):
        report = gate_report(flagged)
        assert report["violations"] == [] and report["flags"] == [(gate.PAINTED_WORDS, DETAIL)]
