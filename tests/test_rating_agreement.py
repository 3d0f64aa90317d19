"""Agreement statistics against published and hand-computed values, and the
agreement page built on them (staff only)."""
from __future__ import annotations

import random

import pytest
from django.urls import reverse

from rating import agreement
from rating.agreement import confusion_table, disagreement, krippendorff_alpha, weighted_kappa
from rating.services import curator_get_or_create, grade_record
from sketches import services as sketch_services
from sketches.models import Render

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C:
# four observers, twelve units, values 1-5, missing data. Rows are observers.
KRIPPENDORFF_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
# Same paper, example A: two observers, binary data, no missing values.
KRIPPENDORFF_A = [
    [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
    [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
]


def units(rows):
    return list(zip(*rows, strict=True))


class TestKrippendorffAlphaMatchesThePublishedExamples:
    @pytest.mark.parametrize("level, published", [
        ("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
    def test_four_observers_with_missing_data(self, level, published):
        alpha = krippendorff_alpha(units(KRIPPENDORFF_C), level=level)
        assert alpha == pytest.approx(published, abs=5e-4)

    def test_two_observers_binary(self):
        assert krippendorff_alpha(units(KRIPPENDORFF_A), level="nominal") == pytest.approx(
            0.095, abs=5e-4)

    def test_coincidences_of_the_published_example(self):
        # By hand from the definition: unit 1 (1,1,1) gives o[1,1] 3*2/2 = 3,
        # unit 8 (1,1,2,1) 3*2/3 = 2 and unit 11 (1,1) 2: o[1,1] = 7; unit 6
        # (1,2,3,4) adds 1/3 to o[1,2] and unit 8 adds 3*1/3 = 1: 4/3. Unit 12
        # has one value and drops out: 40 pairable values remain.
        o = agreement.coincidence_matrix(units(KRIPPENDORFF_C))
        assert o[(1, 1)] == pytest.approx(7)
        assert o[(2, 2)] == pytest.approx(10)
        assert o[(3, 3)] == pytest.approx(8)
        assert o[(5, 5)] == pytest.approx(3)
        assert o[(1, 2)] == o[(2, 1)] == pytest.approx(4 / 3)
        assert sum(o.values()) == pytest.approx(40)


class TestKrippendorffAlphaEdgeCases:
    def test_perfect_agreement_is_one(self):
        assert krippendorff_alpha([(0, 0), (1, 1), (2, 2, 2), (0, None, 0)]) == 1.0

    def test_a_unit_graded_once_does_not_count(self):
        base = units(KRIPPENDORFF_C)
        assert krippendorff_alpha(base + [(5, N, N, N)]) == krippendorff_alpha(base)

    def test_no_variation_is_undefined_not_zero(self):
        assert krippendorff_alpha([(1, 1), (1, 1, 1)]) is None

    def test_nothing_pairable_is_undefined(self):
        assert krippendorff_alpha([(1, N), (2,)]) is None

    def test_unknown_level_is_an_error(self):
        with pytest.raises(ValueError, match="unknown level 'ratio'"):
            krippendorff_alpha([(1, 2), (2, 2)], level="ratio")


class TestWeightedKappa:
    # Worked by hand: rater A 0,1,2,0 and rater B 0,1,2,1 on three categories.
    # Observed weighted disagreement: one pair at distance 1, (1/2)^2 / 4 = 1/16.
    # Expected from the marginals A (2,1,1), B (1,2,1): sum r_i c_j (i-j)^2/4 / 16
    # = 20/4/16 = 5/16. Quadratic kappa = 1 - (1/16)/(5/16) = 4/5.
    # Linear: observed (1/2)/4 = 1/8, expected 7/16, kappa = 1 - 2/7 = 5/7.
    PAIRS = [(0, 0), (1, 1), (2, 2), (0, 1)]

    def test_quadratic_hand_computed(self):
        assert weighted_kappa(self.PAIRS, [0, 1, 2]) == pytest.approx(4 / 5)

    def test_linear_hand_computed(self):
        assert weighted_kappa(self.PAIRS, [0, 1, 2], weights="linear") == pytest.approx(5 / 7)

    def test_quadratic_equals_the_moment_formula(self):
        # Quadratic-weighted kappa = 2 cov(a, b) / (var a + var b + (mean a - mean b)^2)
        # with population moments (Fleiss & Cohen 1973): an independent route.
        rng = random.Random(7)
        a = [rng.choice([0, 1, 2]) for _ in range(200)]
        b = [min(2, max(0, x + rng.choice([-1, 0, 0, 1]))) for x in a]
        n = len(a)
        ma, mb = sum(a) / n, sum(b) / n
        cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / n
        va = sum((x - ma) ** 2 for x in a) / n
        vb = sum((y - mb) ** 2 for y in b) / n
        expected = 2 * cov / (va + vb + (ma - mb) ** 2)
        assert weighted_kappa(zip(a, b, strict=True), [0, 1, 2]) == pytest.approx(expected)

    def test_perfect_agreement_is_one(self):
        assert weighted_kappa([(0, 0), (2, 2), (1, 1)], [0, 1, 2]) == 1.0

    def test_one_category_only_is_undefined(self):
        assert weighted_kappa([(1, 1), (1, 1)], [0, 1, 2]) is None
        assert weighted_kappa([], [0, 1, 2]) is None


class TestConfusionTableAndDisagreement:
    def test_rows_are_the_first_coder(self):
        assert confusion_table([(0, 1), (0, 1), (2, 2)], [0, 1, 2]) == [
            [0, 2, 0], [0, 0, 0], [0, 0, 1]]

    def test_value_outside_the_categories_is_an_error(self):
        with pytest.raises(ValueError, match="value 3 is not one of the categories"):
            confusion_table([(3, 0)], [0, 1, 2])

    def test_disagreement_is_mean_squared_pairwise_distance(self):
        assert disagreement([2, 0]) == 4
        assert disagreement([2, 1]) == 1
        assert disagreement([2, 2, 0]) == pytest.approx(8 / 3)
        assert disagreement([1]) == 0


@pytest.fixture
def graded(db):
    """Three curators over six renders: alice and bob agree on four, differ by
    one step on one and by two steps (love vs nope) on one; carol grades two."""
    alice, bob, carol = (curator_get_or_create(username=n) for n in ("alice", "bob", "carol"))
    sketch = sketch_services.sketch_create(code="function setup(){}", prompt="a red kite")
    renders = [Render.objects.create(sketch=sketch, status="ok", seed=i) for i in range(6)]
    plan = {
        alice: ["love", "okay", "nope", "nope", "love", "love"],
        bob: ["love", "okay", "nope", "nope", "okay", "nope"],
        carol: [None, None, None, None, "okay", "love"],
    }
    for curator, values in plan.items():
        for render, value in zip(renders, values, strict=True):
            if value:
                grade_record(render=render, curator=curator, value=value)
    return renders


class TestAgreementPage:
    def test_staff_see_pairs_tables_and_the_most_disputed_render(self, client, staff, graded):
        client.force_login(staff)
        response = client.get(reverse("rating:agreement"))
        assert response.status_code == 200
        report = response.context["report"]
        assert report.curators == ["alice", "bob", "carol"]
        assert report.grades == 14 and report.multiply_graded == 6
        alice_bob = report.pairs[0]
        assert (alice_bob.curator_a, alice_bob.curator_b, alice_bob.shared) == ("alice", "bob", 6)
        # rows alice, columns bob, order nope/okay/love
        assert alice_bob.table == [[2, 0, 0], [0, 1, 0], [1, 1, 1]]
        assert alice_bob.kappa == pytest.approx(weighted_kappa(
            [(2, 2), (1, 1), (0, 0), (0, 0), (2, 1), (2, 0)], [0, 1, 2]))
        kappas = {(p.curator_a, p.curator_b): (p.kappa, p.shared) for p in report.pairs}
        assert report.mean_kappa == pytest.approx(
            sum(k * n for k, n in kappas.values()) / sum(n for _, n in kappas.values()))
        assert [n for _, n in kappas.values()] == [6, 2, 2]
        # love/nope/love on the last render is the widest split.
        assert report.disputed[0].render_id == graded[5].pk
        assert report.disputed[0].grades == [("alice", "love"), ("bob", "nope"),
                                             ("carol", "love")]
        detail = reverse("sketches:render_detail", args=[graded[5].pk])
        assert f'href="{detail}"'.encode() in response.content
        assert b"a red kite" in response.content

    def test_empty_database_says_there_is_nothing_to_compare(self, client, staff):
        client.force_login(staff)
        response = client.get(reverse("rating:agreement"))
        assert response.status_code == 200
        assert response.context["report"].alpha is None
        assert b"No render has been graded by two curators yet" in response.content

    def test_curators_are_refused_because_they_would_see_each_others_grades(self, client, db):
        client.force_login(curator_get_or_create(username="dora"))
        assert client.get(reverse("rating:agreement")).status_code == 403

    def test_anonymous_visitors_go_to_the_login_page(self, client, db):
        response = client.get(reverse("rating:agreement"))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
