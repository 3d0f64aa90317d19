"""What the lab's pages show: recent replays, judges with their agreement,
and a finished replay's diagnostics turned into findings, tables and charts."""
from __future__ import annotations

from ..charts import bars_svg, heatmap_svg, histogram_svg
from ..diagnostics import rubric_diagnostics
from ..models import Judge, Replay
from ..reward.rubric import rubric_specs, rubric_total

RECENT = 20
EXTREMES = 6


def entry_specs(entry: dict):
    """What one of a replay's rubrics scores: its signals without those dropped."""
    return rubric_specs(entry["signals"], entry.get("dropped") or ())


def replay_results(replay: Replay) -> dict:
    """Diagnostics of each rubric on the replay's stored values."""
    rows = [(item.values, item.group) for item in replay.items.only("values", "group")
            if item.values and not item.values.get("deleted")]
    values, groups = [v for v, _ in rows], [g for _, g in rows]
    return {"rubrics": [{"label": entry["label"],
                         "diagnostics": rubric_diagnostics(entry_specs(entry), values, groups)}
                        for entry in replay.rubric_signals]}


def replays_recent():
    return Replay.objects.select_related("rubric", "compare_rubric", "created_by")[:RECENT]


def judges_with_agreement():
    return Judge.objects.all()


def replay_columns(replay: Replay) -> list[dict]:
    """One column per rubric: findings in words, the signal table and charts."""
    return [diagnostics_column(rubric["label"], rubric["diagnostics"])
            for rubric in (replay.results or {}).get("rubrics", [])]


def diagnostics_column(label: str, diagnosis: dict) -> dict:
    """A diagnosis as templates/training/_diagnostics.html shows it: findings in
    words, the signal table and three charts."""
    signals, correlation = diagnosis["signals"], diagnosis["correlation"]
    histogram = diagnosis["advantages"]["histogram"]
    return {
        "label": label,
        "diagnosis": diagnosis,
        "findings": findings(diagnosis),
        "weights_chart": bars_svg(
            [s["name"] for s in signals],
            {"nominal weight": [s["weight_share"] for s in signals],
             "effective share": [s["effective_share"] for s in signals]},
            max_value=1.0, percent=True),
        "correlation_chart": heatmap_svg(correlation["names"], correlation["matrix"]),
        "advantage_chart": histogram_svg(histogram["edges"], histogram["counts"],
                                         x_label="GRPO advantage"),
    }


def findings(diagnosis: dict) -> list[str]:
    """The diagnosis in sentences: redundant clusters, saturated and dead
    signals, missing values, and groups that teach nothing."""
    out = []
    by_name = {s["name"]: s for s in diagnosis["signals"]}
    for cluster in _clusters([(p["a"], p["b"]) for p in diagnosis.get("redundant", [])]):
        weight = sum(by_name[name]["weight_share"] for name in cluster)
        out.append(f"{_and(cluster)} move together (correlation ≥ threshold): one signal "
                   f"counted {len(cluster)} times, holding {weight:.0%} of the weight.")
    for s in diagnosis["signals"]:
        share = s.get("effective_share")
        weights = (f"weight {s['weight_share']:.0%}, effective share "
                   f"{'n/a' if share is None else format(share, '.0%')}")
        # A weighted signal's None leaves the render with no total (training.reward.rubric).
        costs = ": none of them has a total" if s["weight_share"] else ""
        if s["n"] == 0:
            out.append(f"{s['name']} could not be computed for any of the {s['missing']} "
                       f"renders (None, not 0){costs or ': it adds nothing'} ({weights}).")
            continue
        if "dead" in s["flags"]:
            out.append(f"{s['name']} is dead: the same value for every render ({weights}).")
        elif "saturated" in s["flags"]:
            flat = s.get("zero_spread_groups") or 0.0
            spread = s.get("within_std") or 0.0
            how = (f"flat within {flat:.0%} of groups" if flat >= 0.5
                   else f"its spread within groups is only {spread:.3f}")
            out.append(f"{s['name']} is saturated: {how}, so GRPO learns almost nothing "
                       f"from it ({weights}).")
        if s["missing"]:
            out.append(f"{s['name']} could not be computed for {s['missing']} of "
                       f"{s['missing'] + s['n']} renders (None, not 0)"
                       f"{': they have no total' if costs else ''}.")
    zero_groups = diagnosis["advantages"].get("zero_groups")
    if zero_groups:
        out.append(f"{zero_groups:.0%} of groups have identical totals: zero advantage, "
                   "no learning signal from them.")
    return out


def _clusters(pairs: list[tuple[str, str]]) -> list[list[str]]:
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for a, b in pairs:
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(root(name), []).append(name)
    return [sorted(members) for members in groups.values() if len(members) > 1]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def replay_extremes(replay: Replay) -> list[tuple[str, list[dict]]]:
    """The renders the first rubric rewards most and least, with their values:
    [(heading, rows)], empty until the replay is done."""
    if not replay.rubric_signals or replay.status != Replay.Status.DONE:
        return []
    specs = entry_specs(replay.rubric_signals[0])
    rows = []
    for item in replay.items.select_related("render__sketch"):
        if item.render is None or not item.values or item.values.get("deleted"):
            continue
        total = rubric_total(item.values, specs)
        if total is not None:
            signals = [(spec.name, item.values.get(spec.key)) for spec in specs]
            rows.append({"render": item.render, "total": total, "group": item.group,
                         "signals": signals})
    rows.sort(key=lambda row: row["total"], reverse=True)
    best = rows[:EXTREMES]
    worst = rows[len(best):][::-1][:EXTREMES]  # never the same render twice
    return [(heading, chosen) for heading, chosen in
            (("Highest reward", best), ("Lowest reward", worst)) if chosen]
