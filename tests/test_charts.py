"""The replay lab's SVG charts: well-formed XML, the numbers printed on them, hostile names
escaped, None and empty input handled."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from django.utils.safestring import SafeString

from training.charts import bars_svg, heatmap_svg, histogram_svg, lines_svg

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(1)</script> & \"quotes\" 'too'"


def parse(svg: str) -> ET.Element:
    assert isinstance(svg, SafeString)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def printed(root: ET.Element) -> list[str]:
    """What each <text> shows (its tooltip <title> left out)."""
    return [(el.text or "") + "".join(child.tail or "" for child in el)
            for el in root.iter(f"{SVG}text")]


def tooltips(root: ET.Element) -> list[str]:
    return [el.text for el in root.iter(f"{SVG}title")]


def outlined(root: ET.Element) -> list[ET.Element]:
    return [el for el in root.iter(f"{SVG}rect") if el.get("stroke-width") == "3"]


class TestAccessibleFrame:
    def test_every_chart_is_an_img_with_title_label_and_viewbox(self):
        charts = [heatmap_svg(["a"], [[1.0]], title="Correlation"),
                  bars_svg(["a"], {"w": [0.5]}, title="Weights"),
                  histogram_svg([0, 1], [3], x_label="advantage", title="Advantages"),
                  lines_svg({"a": [(0, 0.1), (1, 0.2)]}, y_label="r", x_label="step",
                            title="Curves")]
        for svg, title in zip(charts, ["Correlation", "Weights", "Advantages", "Curves"],
                              strict=True):
            root = parse(svg)
            assert root.get("role") == "img"
            assert root.get("aria-label") == title
            assert root.find(f"{SVG}title").text == title
            assert root.get("width") == "100%" and len(root.get("viewBox").split()) == 4

    def test_hostile_title_is_escaped(self):
        root = parse(bars_svg(["a"], {"w": [0.5]}, title=HOSTILE))
        assert root.get("aria-label") == HOSTILE
        assert root.find(f"{SVG}script") is None


class TestHeatmap:
    NAMES = ["beauty", "technique", "gate"]
    MATRIX = [[1.0, 0.93, None], [0.93, 1.0, None], [None, None, None]]

    def test_values_printed_with_two_decimals_and_a_dash_for_none(self):
        texts = printed(parse(heatmap_svg(self.NAMES, self.MATRIX)))
        assert texts.count("0.93") == 2 and texts.count("1.00") == 2
        assert texts.count("\u2013") == 5
        assert all(texts.count(name) == 2 for name in self.NAMES)  # row and column label

    def test_only_off_diagonal_cells_at_threshold_are_outlined(self):
        assert len(outlined(parse(heatmap_svg(self.NAMES, self.MATRIX)))) == 2
        assert outlined(parse(heatmap_svg(self.NAMES, self.MATRIX, threshold=0.95))) == []

    def test_negative_correlation_is_blue_and_positive_red(self):
        root = parse(heatmap_svg(["a", "b"], [[1.0, -0.9], [-0.9, 1.0]]))
        fills = [el.get("fill") for el in root.iter(f"{SVG}rect") if el.get("fill") != "none"]
        red, green, blue = (int(fills[1][i:i + 2], 16) for i in (1, 3, 5))
        assert blue > red
        red, green, blue = (int(fills[0][i:i + 2], 16) for i in (1, 3, 5))
        assert red > blue
        assert len(outlined(root)) == 2  # |r| counts, not r

    def test_hostile_names_are_escaped(self):
        svg = heatmap_svg([HOSTILE, "b"], [[1.0, 0.2], [0.2, 1.0]])
        assert "<script>" not in svg
        root = parse(svg)
        shown = printed(root)
        assert any(text.startswith("<script>alert(1)") for text in shown)
        assert HOSTILE in tooltips(root)  # cut on the chart, whole in the tooltip

    def test_no_names_says_no_data(self):
        assert printed(parse(heatmap_svg([], []))) == ["no data"]


class TestBars:
    def test_each_value_printed_at_its_bar_with_a_legend(self):
        root = parse(bars_svg(["length ramp", "pairwise"],
                              {"nominal weight": [0.33, 0.6], "effective share": [0.004, 0.7]},
                              percent=True))
        texts = printed(root)
        for value in ("33%", "60%", "0.4%", "70%"):
            assert value in texts
        assert "nominal weight" in texts and "effective share" in texts
        assert "length ramp" in texts and "pairwise" in texts

    def test_none_prints_a_dash_and_draws_no_bar(self):
        root = parse(bars_svg(["a", "b"], {"share": [0.5, None]}))
        assert "\u2013" in printed(root) and "0.50" in printed(root)
        bars = [el for el in root.iter(f"{SVG}rect") if el.find(f"{SVG}title") is not None]
        assert len(bars) == 1

    def test_negative_value_is_drawn_left_of_zero(self):
        root = parse(bars_svg(["a", "b"], {"share": [-0.2, 0.8]}, max_value=1.0))
        assert "-0.20" in printed(root)
        negative, positive = (el for el in root.iter(f"{SVG}rect")
                              if el.find(f"{SVG}title") is not None)
        assert float(negative.get("x")) < float(positive.get("x"))

    def test_hostile_labels_and_series_are_escaped(self):
        svg = bars_svg([HOSTILE], {HOSTILE: [0.1]})
        assert "<script>" not in svg
        parse(svg)

    def test_empty_input_says_no_data(self):
        assert printed(parse(bars_svg([], {}))) == ["no data"]


class TestHistogram:
    def test_counts_printed_above_bars_and_edges_ticked(self):
        edges = [-1.0, -0.5, 0.0, 0.5, 1.0]
        texts = printed(parse(histogram_svg(edges, [4, 0, 12, 7], x_label="advantage")))
        assert texts[:3] == ["4", "12", "7"]  # the empty bin prints nothing
        assert texts[3:8] == ["-1", "-0.5", "0", "0.5", "1"]
        assert "advantage" in texts

    def test_many_bins_tick_only_a_few_edges(self):
        edges = [i / 10 for i in range(21)]
        texts = printed(parse(histogram_svg(edges, [1] * 20, x_label="x")))
        ticks = [t for t in texts if t not in ("1", "x")]
        assert 3 <= len(ticks) <= 6 and ticks[0] == "0" and ticks[-1] == "2"

    def test_hostile_x_label_is_escaped(self):
        svg = histogram_svg([0, 1], [2], x_label=HOSTILE)
        assert "<script>" not in svg and HOSTILE in printed(parse(svg))

    def test_empty_or_all_zero_says_no_data(self):
        assert printed(parse(histogram_svg([], [], x_label="x"))) == ["no data"]
        assert printed(parse(histogram_svg([0, 1], [0], x_label="x"))) == ["no data"]


class TestLines:
    def test_none_breaks_the_line_and_a_lone_point_is_a_dot(self):
        root = parse(lines_svg({"pairwise": [(0, 0.1), (1, 0.2), (2, None), (3, 0.3), (4, 0.4),
                                             (5, None), (6, 0.5)]},
                               y_label="mean reward", x_label="step"))
        assert len(list(root.iter(f"{SVG}path"))) == 2
        assert len(list(root.iter(f"{SVG}circle"))) == 1

    def test_each_line_labelled_at_its_end_with_its_last_value(self):
        root = parse(lines_svg({"pairwise": [(0, 0.1), (10, 0.62)],
                                "length ramp": [(0, 0.0), (10, 1.0), (20, None)]},
                               y_label="mean reward", x_label="step"))
        texts = printed(root)
        assert "pairwise 0.62" in texts and "length ramp 1" in texts
        assert "step" in texts and "mean reward" in texts
        assert "0" in texts and "10" in texts  # x ticks

    def test_hostile_series_name_is_escaped(self):
        svg = lines_svg({HOSTILE: [(0, 0.1), (1, 0.2)]}, y_label=HOSTILE, x_label="x")
        assert "<script>" not in svg
        assert HOSTILE in printed(parse(svg))  # the axis label, in full

    def test_empty_or_all_none_says_no_data(self):
        assert printed(parse(lines_svg({}, y_label="y", x_label="x"))) == ["no data"]
        assert printed(parse(lines_svg({"a": [(0, None), (1, float("nan"))]},
                                       y_label="y", x_label="x"))) == ["no data"]
