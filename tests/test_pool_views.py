"""The curation and snapshot pages: who may look and who may change, the
htmx fragments, CSRF, and what the page shows."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from pool.models import PoolPin, PoolRule, PoolSnapshot, RenderFingerprint
from pool.services import snapshot_freeze
from sketches.models import Render
from tests.pool_data import grades_give, pool_renders_create
from tests.rating_data import curator_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

CURATE = reverse("pool:curate")


@pytest.fixture
def curator():
    return curator_create("alice")


@pytest.fixture
def pool():
    """Two loved tulips, an okay hibiscus."""
    tulips = pool_renders_create(2, prompt="a tulip")
    (hibiscus,) = pool_renders_create(1, prompt="a hibiscus", start=2)
    for render in tulips:
        grades_give(render, "love")
    grades_give(hibiscus, "okay")
    return tulips, hibiscus


def as_user(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def changes(pool) -> list[tuple[str, dict]]:
    tulips, hibiscus = pool
    return [
        ("pool:pin", {"render": tulips[0].pk, "action": "out", "tier": "love", "reason": "r"}),
        ("pool:unpin", {"render": tulips[0].pk}),
        ("pool:drop_duplicate", {"first": tulips[0].pk, "second": tulips[1].pk}),
        ("pool:rule", {"love_share": 0.6, "okay_tier": "on", "min_grades": 1,
                       "min_per_subject": 5}),
        ("pool:freeze", {"name": "by curator"}),
    ]


class TestAccess:
    def test_staff_and_curators_see_the_curation_page(self, staff, curator, pool):
        for user in (staff, curator):
            response = as_user(user).get(CURATE)
            assert response.status_code == 200
            assert b"Reference pool" in response.content

    def test_curators_see_no_forms_and_no_grade_counts(self, curator, pool):
        content = as_user(curator).get(CURATE).content.decode()
        assert 'action="/pool/pin/"' not in content and "Freeze" not in content
        assert "1/0/0" not in content  # staff see love/okay/nope counts per render

    def test_others_are_refused(self, pool):
        visitor = get_user_model().objects.create_user("visitor", password="x" * 12)
        assert as_user(visitor).get(CURATE).status_code == 403
        response = Client().get(CURATE)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))

    def test_curators_posts_are_refused_and_change_nothing(self, curator, pool):
        client = as_user(curator)
        for name, data in changes(pool):
            assert client.post(reverse(name), data).status_code == 403, name
        assert not PoolPin.objects.exists()
        assert not PoolSnapshot.objects.exists()
        assert PoolRule.objects.count() <= 1

    def test_posts_need_the_csrf_token(self, staff, pool):
        client = Client(enforce_csrf_checks=True)
        client.force_login(staff)
        page = client.get(CURATE)
        assert b"csrfmiddlewaretoken" in page.content
        for name, data in changes(pool):
            assert client.post(reverse(name), data).status_code == 403, name
        assert not PoolPin.objects.exists()

    def test_gets_are_not_changes(self, staff):
        assert as_user(staff).get(reverse("pool:pin")).status_code == 405


class TestCurationPage:
    def test_the_grid_by_subject_with_tiers_counts_balance_and_scores(self, staff, pool):
        tulips, hibiscus = pool
        Render.objects.filter(pk=tulips[0].pk).update(taste_score=0.734)
        response = as_user(staff).get(CURATE)
        overview = response.context["overview"]
        assert [(s, len(e)) for s, e in overview.by_subject] == [("hibiscus", 1), ("tulip", 2)]
        assert (overview.love, overview.okay) == (2, 1)
        content = response.content.decode()
        assert 'id="subject-tulip"' in content and "pool-tier-okay" in content
        assert "0.73" in content  # the taste score on its tile
        assert 'class="pool-bar-love" style="width: 100.0%"' in content  # tulip, the widest

    def test_thin_subjects_are_warned_about(self, staff, pool):
        content = as_user(staff).get(CURATE).content.decode()
        assert "Thin subjects" in content
        assert "2 subjects with fewer than 5 love references" in content
        assert "<strong>tulip</strong> (2)" in content
        assert "<strong>hibiscus</strong> (0)" in content

    def test_thin_subjects_share_one_warning_line(self, staff):
        for index, prompt in enumerate(("a tulip", "a poppy", "a peony", "a lotus")):
            (render,) = pool_renders_create(1, prompt=prompt, start=index)
            grades_give(render, "love")
        content = as_user(staff).get(CURATE).content.decode()
        assert content.count('class="pool-thin-line"') == 1
        assert content.count("love references:") == 1  # not one sentence per subject
        line = content.split('class="pool-thin-line">')[1].split("</p>")[0]
        assert line.startswith("4 subjects with fewer than 5 love references: ")
        for subject in ("tulip", "poppy", "peony", "lotus"):
            assert f"<strong>{subject}</strong> (1)" in line
        assert "Prompts about them will be judged" in line

    def test_the_balance_counts_empty_subjects_and_says_what_it_means(self, staff, pool):
        """Two loved tulips and an okay hibiscus: love is all in one of two subjects."""
        response = as_user(staff).get(CURATE)
        assert response.context["overview"].evenness == 0.0
        content = response.content.decode()
        assert "<strong>1</strong> of 2 subjects with love references" in content
        assert 'balance <strong class="stat">0.00</strong>' in content
        assert "1 = as many in each, 0 = all in one or none" in content

    def test_each_subject_is_one_collapsible_section(self, staff, pool):
        content = as_user(staff).get(CURATE).content.decode()
        assert content.count('<details class="pool-subject"') == 2
        for subject, count in (("tulip", "2 renders"), ("hibiscus", "1 render")):
            start = content.index(f'<details class="pool-subject" id="subject-{subject}"')
            section = content[start:content.index("\n  </details>", start)]  # the pin-out one nests
            assert f"<summary><h2>{subject}</h2> <small class=\"muted\">{count}</small>" \
                in section
            assert section.count('class="tile pool-tile"') == int(count[0])

    def test_a_large_pool_starts_with_its_subjects_folded(self, staff):
        renders = pool_renders_create(25, prompt="a tulip")
        for render in renders:
            grades_give(render, "love")
        content = as_user(staff).get(CURATE).content.decode()
        assert '<details class="pool-subject" id="subject-tulip">' in content  # not open

    def test_an_empty_pool_says_how_to_fill_it(self, staff):
        assert b"The pool is empty" in as_user(staff).get(CURATE).content

    def test_showing_the_page_writes_nothing(self, staff, pool):
        """The default rule is shown, not saved; fingerprints go to a task."""
        content = as_user(staff).get(CURATE).content.decode()
        assert "The default rule: love when more than 50%" in content
        assert not PoolRule.objects.exists() and not RenderFingerprint.objects.exists()
        rule = PoolRule.objects.create(note="saved")
        assert f"Rule {rule.pk}: love" in as_user(staff).get(CURATE).content.decode()


class TestChanges:
    def test_pin_out_by_htmx_swaps_the_fragment(self, staff, pool):
        tulips, _ = pool
        response = as_user(staff).post(reverse("pool:pin"), {
            "render": tulips[0].pk, "action": "out", "tier": "love", "reason": "too dark"},
            HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        content = response.content.decode()
        assert content.lstrip().startswith('<div id="pool-body">')
        assert "<html" not in content
        assert f"Render {tulips[0].pk} pinned out of the pool." in content
        assert PoolPin.objects.get(render=tulips[0]).reason == "too dark"

    def test_pin_in_without_javascript_redirects_back(self, staff, pool):
        (extra,) = pool_renders_create(1, prompt="a poppy", start=5)
        response = as_user(staff).post(reverse("pool:pin"), {
            "render": extra.pk, "action": "in", "tier": "okay", "reason": "a good example"})
        assert response.status_code == 302 and response["Location"] == CURATE
        assert PoolPin.objects.get(render=extra).tier == "okay"

    def test_a_bad_pin_says_why(self, staff, pool):
        client = as_user(staff)
        response = client.post(reverse("pool:pin"), {"render": 999999, "action": "in",
                                                      "tier": "love", "reason": "r"})
        assert response.status_code == 400 and b"there is no render 999999" in response.content
        response = client.post(reverse("pool:pin"), {"render": pool[0][0].pk, "action": "in",
                                                      "tier": "love", "reason": ""},
                               HTTP_HX_REQUEST="true")
        assert response.status_code == 200 and b"reason: This field is required" in \
            response.content

    def test_unpin(self, staff, pool):
        tulips, _ = pool
        client = as_user(staff)
        client.post(reverse("pool:pin"), {"render": tulips[0].pk, "action": "out",
                                          "tier": "love", "reason": "r"})
        client.post(reverse("pool:unpin"), {"render": tulips[0].pk}, HTTP_HX_REQUEST="true")
        assert not PoolPin.objects.exists()

    def test_drop_the_weaker_by_htmx(self, staff, pool):
        tulips, _ = pool
        grades_give(tulips[1], "love", "love")
        response = as_user(staff).post(reverse("pool:drop_duplicate"),
                                       {"first": tulips[1].pk, "second": tulips[0].pk},
                                       HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        pin = PoolPin.objects.get()
        assert (pin.render_id, pin.reason) == (tulips[0].pk,
                                               f"near duplicate of render {tulips[1].pk}")

    def test_the_rule_form_puts_a_new_version_in_force(self, staff, pool):
        response = as_user(staff).post(reverse("pool:rule"), {
            "love_share": "0.5", "min_grades": "1", "min_per_subject": "2", "note": "no okay"})
        assert response.status_code == 302
        rule = PoolRule.objects.order_by("-pk").first()
        assert (rule.okay_tier, rule.min_per_subject, rule.created_by.username) == (
            False, 2, "boss")

    def test_a_bad_rule_is_refused(self, staff, pool):
        response = as_user(staff).post(reverse("pool:rule"), {
            "love_share": "1", "okay_tier": "on", "min_grades": "1", "min_per_subject": "5"})
        assert response.status_code == 400 and b"below 1" in response.content

    def test_freeze_opens_the_new_snapshot(self, staff, pool):
        client = as_user(staff)
        response = client.post(reverse("pool:freeze"), {"name": "week 48", "note": "n"})
        snapshot = PoolSnapshot.objects.get()
        assert response["Location"] == reverse("pool:snapshot", args=[snapshot.pk])
        assert snapshot.created_by.username == "boss" and snapshot.members.count() == 3
        again = client.post(reverse("pool:freeze"), {"name": "week 48"})
        assert again.status_code == 400 and b"exists already" in again.content


    def test_freezing_with_no_name_says_why_on_the_page(self, staff, pool):
        """The browser's own tooltip was the only answer: the form is not
        checked by the browser, and the page says what is missing."""
        client = as_user(staff)
        page = client.get(reverse("pool:curate")).content.decode()
        freeze = page[page.index('class="pool-form pool-freeze"'):]
        freeze = freeze[:freeze.index("</form>")]
        assert "novalidate" in freeze
        assert f'placeholder="e.g. pool-{timezone.localdate():%Y-%m-%d}"' in freeze
        response = client.post(reverse("pool:freeze"), {"name": "", "note": "n"})
        assert response.status_code == 400 and not PoolSnapshot.objects.exists()
        assert "This field is required: name the snapshot" in response.content.decode()

    def test_each_label_points_at_its_own_field(self, staff, pool):
        import re

        page = as_user(staff).get(reverse("pool:curate")).content.decode()
        ids = re.findall(r'\sid="([^"]+)"', page)
        assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
        assert '<label for="id_freeze_note">' in page and 'id="id_freeze_note"' in page


class TestSnapshotPages:
    def test_detail_member_images_and_export_for_curators(self, curator, pool):
        snapshot = snapshot_freeze(name="s")
        client = as_user(curator)
        page = client.get(reverse("pool:snapshot", args=[snapshot.pk]))
        assert page.status_code == 200 and b"Snapshot s" in page.content
        member = snapshot.members.first()
        image = client.get(reverse("pool:member_png", args=[member.pk]))
        assert image["Content-Type"] == "image/png"
        assert b"".join(image.streaming_content).startswith(b"\x89PNG")
        export = client.get(reverse("pool:snapshot_export", args=[snapshot.pk]))
        assert export["Content-Disposition"] == 'attachment; filename="s.zip"'
        with zipfile.ZipFile(io.BytesIO(b"".join(export.streaming_content))) as archive:
            assert "s/manifest.jsonl" in archive.namelist()

    def test_snapshots_are_listed_on_the_curation_page(self, curator, pool):
        snapshot = snapshot_freeze(name="listed")
        content = as_user(curator).get(CURATE).content.decode()
        assert reverse("pool:snapshot", args=[snapshot.pk]) in content
        assert reverse("pool:snapshot_export", args=[snapshot.pk]) in content


class TestAdmin:
    @pytest.fixture
    def admin_client(self):
        user = get_user_model().objects.create_superuser("root", "r@example.com", "x" * 12)
        return as_user(user)

    def test_a_rule_is_added_as_a_new_version_from_the_one_in_force(self, admin_client):
        page = admin_client.get("/admin/pool/poolrule/add/")
        assert page.status_code == 200 and b'value="0.5"' in page.content
        response = admin_client.post("/admin/pool/poolrule/add/", {
            "love_share": "0.6", "okay_tier": "on", "min_grades": "2", "min_per_subject": "4",
            "note": "stricter"})
        assert response.status_code == 302
        rule = PoolRule.objects.order_by("-pk").first()
        assert (rule.love_share, rule.min_grades, rule.created_by.username) == (0.6, 2, "root")
        refused = admin_client.post("/admin/pool/poolrule/add/", {
            "love_share": "1", "okay_tier": "on", "min_grades": "1", "min_per_subject": "4"})
        assert refused.status_code == 200 and b"below 1" in refused.content
        # Existing versions are read-only.
        change = admin_client.get(f"/admin/pool/poolrule/{rule.pk}/change/")
        assert change.status_code == 200 and b'name="love_share"' not in change.content

    def test_snapshots_are_read_only(self, admin_client, pool):
        snapshot = snapshot_freeze(name="ro")
        change = admin_client.get(f"/admin/pool/poolsnapshot/{snapshot.pk}/change/")
        assert change.status_code == 200
        assert b'name="name"' not in change.content and b'name="_save"' not in change.content
        assert b"a tulip" in change.content  # the members inline
        assert admin_client.get("/admin/pool/poolsnapshot/add/").status_code == 403
        assert admin_client.get(
            f"/admin/pool/poolsnapshot/{snapshot.pk}/delete/").status_code == 403
        admin_client.post(f"/admin/pool/poolsnapshot/{snapshot.pk}/change/", {"name": "x"})
        assert PoolSnapshot.objects.get().name == "ro"

    def test_pins_are_edited_in_the_admin(self, admin_client, pool):
        tulips, _ = pool
        response = admin_client.post("/admin/pool/poolpin/add/", {
            "render": tulips[0].pk, "action": "out", "tier": "love", "reason": "admin"})
        assert response.status_code == 302
        assert PoolPin.objects.get().created_by.username == "root"
