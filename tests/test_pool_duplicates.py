"""Near-duplicates: the perceptual fingerprint flags slightly altered copies
and not different pictures, is stored once per PNG (by a task, never by the
page's read), and "drop the weaker" pins out the right render."""
from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.urls import reverse
from PIL import Image, ImageEnhance, ImageFilter

from pool.models import PoolPin, RenderFingerprint
from pool.phash import (
    fingerprint_bytes,
    fingerprint_image,
    hamming,
    layout_distance,
    near_duplicate_pairs,
)
from pool.selectors import pool_overview, render_fingerprints
from pool.services import (
    PoolError,
    duplicate_drop_weaker,
    duplicate_weaker,
    render_fingerprints_store,
)
from pool.tasks import render_fingerprints_store_task
from sketches.models import Render
from tests.pool_data import grades_give, pattern_image, png_of, pool_renders_create

MAX_BITS, MAX_COLOUR = 8, 10.0  # the settings' defaults

pytestmark = pytest.mark.usefixtures("media")


def altered(image: Image.Image, how: str) -> Image.Image:
    if how == "resized":
        return image.resize((image.width * 2, image.height * 2), Image.Resampling.BICUBIC)
    if how == "jpeg":
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=75)
        return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    if how == "brighter":
        return ImageEnhance.Brightness(image).enhance(1.06)
    if how == "blurred":
        return image.filter(ImageFilter.GaussianBlur(0.8))
    if how == "noisy":
        pixels = np.asarray(image).astype(int)
        noise = np.random.default_rng(0).integers(-10, 11, size=pixels.shape)
        return Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8))
    raise ValueError(how)


def close(a, b) -> bool:
    return hamming(a.phash, b.phash) <= MAX_BITS and layout_distance(a, b) <= MAX_COLOUR


class TestFingerprints:
    @pytest.mark.parametrize("how", ["resized", "jpeg", "brighter", "blurred", "noisy"])
    def test_a_slightly_altered_copy_is_a_near_duplicate(self, how):
        for index in range(10):
            image = pattern_image(index, side=96)
            original = fingerprint_bytes(png_of(image))
            assert close(original, fingerprint_image(altered(image, how))), index

    def test_different_pictures_are_not(self):
        prints = {i: fingerprint_image(pattern_image(i, side=96)) for i in range(40)}
        assert near_duplicate_pairs(prints, max_distance=MAX_BITS,
                                    max_colour_distance=MAX_COLOUR) == []

    def test_the_same_layout_in_other_colours_is_not(self):
        image = pattern_image(3, side=96)
        recoloured = Image.fromarray(np.asarray(image)[:, :, ::-1].copy())  # RGB -> BGR
        a, b = fingerprint_image(image), fingerprint_image(recoloured)
        assert layout_distance(a, b) > MAX_COLOUR

    def test_pairs_are_found_among_many(self):
        prints = {i: fingerprint_image(pattern_image(i, side=96)) for i in range(30)}
        prints[100] = fingerprint_image(altered(pattern_image(7, side=96), "jpeg"))
        prints[101] = fingerprint_image(altered(pattern_image(21, side=96), "resized"))
        pairs = near_duplicate_pairs(prints, max_distance=MAX_BITS,
                                     max_colour_distance=MAX_COLOUR)
        assert {(p.a, p.b) for p in pairs} == {(7, 100), (21, 101)}

    def test_transparent_pixels_count_as_white(self):
        image = pattern_image(5, side=64).convert("RGBA")
        flat = Image.alpha_composite(Image.new("RGBA", image.size, "white"), image)
        assert fingerprint_image(image) == fingerprint_image(flat.convert("RGB"))


@pytest.mark.django_db
class TestStoredFingerprints:
    def test_each_png_is_decoded_once(self):
        renders = pool_renders_create(3)
        first = render_fingerprints_store(renders=renders)
        assert RenderFingerprint.objects.count() == 3
        for render in renders:  # the stored rows answer now, not the files
            render.png.storage.delete(render.png.name)
        read = render_fingerprints(renders)
        assert read.by_render == first and read.unstored == ()

    def test_a_new_png_is_fingerprinted_again(self):
        (render,) = pool_renders_create(1)
        before = render_fingerprints_store(renders=[render])[render.pk]
        render.png.save("render.png", ContentFile(png_of(pattern_image(99))), save=True)
        assert render_fingerprints([render]).unstored == (render.pk,)  # the stored one is stale
        assert render_fingerprints_store(renders=[render])[render.pk] != before
        assert RenderFingerprint.objects.get(render=render).png == render.png.name

    def test_a_missing_png_is_left_out(self):
        (render,) = pool_renders_create(1)
        render.png.storage.delete(render.png.name)
        assert render_fingerprints_store(renders=[render]) == {}
        assert render_fingerprints([render]).by_render == {}
        assert not RenderFingerprint.objects.exists()


@pytest.mark.django_db
class TestTheReadWritesNothing:
    """The pool page's read computes a missing fingerprint without storing it;
    the page has a task store it after the request."""

    @pytest.fixture
    def eager(self, monkeypatch):
        from paintrl_site.celery import app

        monkeypatch.setitem(app.conf, "task_always_eager", True)

    def test_the_overview_computes_missing_fingerprints_and_stores_none(self):
        renders = pool_renders_create(3)
        for render in renders:
            grades_give(render, "love")
        overview = pool_overview()
        assert overview.fingerprints_unstored == tuple(r.pk for r in renders)
        assert not RenderFingerprint.objects.exists()
        render_fingerprints_store_task([r.pk for r in renders])
        assert RenderFingerprint.objects.count() == 3
        assert pool_overview().fingerprints_unstored == ()

    def test_the_page_queues_the_store_after_the_request(
            self, staff_client, client, eager, django_capture_on_commit_callbacks):

        renders = pool_renders_create(2)
        for render in renders:
            grades_give(render, "love")
        with django_capture_on_commit_callbacks() as queued:
            assert client.get(reverse("pool:curate")).status_code == 200
        assert len(queued) == 1 and not RenderFingerprint.objects.exists()
        queued[0]()  # the commit: the task runs (eagerly here) and stores them
        assert set(RenderFingerprint.objects.values_list("render_id", flat=True)) == {
            r.pk for r in renders}
        with django_capture_on_commit_callbacks() as queued:
            client.get(reverse("pool:curate"))
        assert queued == []  # all stored: nothing to queue


@pytest.mark.django_db
class TestDropTheWeaker:
    def scored(self, render: Render, score: float | None) -> Render:
        Render.objects.filter(pk=render.pk).update(taste_score=score)
        render.refresh_from_db()
        return render

    def test_fewer_love_grades_is_weaker_whatever_the_score(self):
        older, newer = pool_renders_create(2)
        grades_give(older, "love", "love", "okay")
        grades_give(newer, "love", "okay", "okay")
        newer = self.scored(newer, 0.99)
        assert duplicate_weaker(newer, older) == (newer, older)

    def test_on_equal_loves_the_lower_taste_score_is_weaker(self):
        older, newer = pool_renders_create(2)
        grades_give(older, "love")
        grades_give(newer, "love")
        older = self.scored(older, 0.8)
        newer = self.scored(newer, 0.3)
        assert duplicate_weaker(older, newer) == (newer, older)

    def test_no_score_counts_lowest(self):
        older, newer = pool_renders_create(2)
        older = self.scored(older, -5.0)
        assert duplicate_weaker(older, newer) == (newer, older)

    def test_on_a_full_tie_the_older_is_weaker(self):
        older, newer = pool_renders_create(2)
        grades_give(older, "love")
        grades_give(newer, "love")
        assert duplicate_weaker(newer, older) == (older, newer)

    def test_dropping_pins_the_weaker_out_naming_the_other(self):
        keep, drop = pool_renders_create(2)
        grades_give(keep, "love", "love")
        grades_give(drop, "love", "okay")
        pin = duplicate_drop_weaker(first=keep, second=drop)
        assert (pin.render_id, pin.action, pin.reason) == (
            drop.pk, PoolPin.Action.OUT, f"near duplicate of render {keep.pk}")
        with pytest.raises(PoolError, match="not a near-duplicate of itself"):
            duplicate_drop_weaker(first=keep, second=keep)

    def test_the_overview_pairs_an_altered_copy_and_names_the_weaker(self):
        renders = pool_renders_create(4)
        copy = renders[3]
        copy.png.save("render.png", ContentFile(png_of(altered(pattern_image(1), "jpeg"))),
                      save=True)
        for render in renders:
            grades_give(render, "love")
        grades_give(renders[1], "love", "love")  # c0 again, then c1: two loves
        (pair,) = pool_overview().duplicates
        assert (pair.weaker.render.pk, pair.stronger.render.pk) == (copy.pk, renders[1].pk)
        duplicate_drop_weaker(first=pair.weaker.render, second=pair.stronger.render)
        assert pool_overview().duplicates == []
