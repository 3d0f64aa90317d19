"""What an import did, item by item, and the counts people read first."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

# Per-outcome cap on the items a stored report lists (the counts stay exact):
# an archive of 100,000 broken files must not become a 50 MB JSON column.
REPORT_ITEMS_CAP = 500
ALREADY_IMPORTED = "already_imported"


class Outcome(StrEnum):
    IMPORTED = "imported"
    SKIPPED = "skipped"    # its code was imported before
    ERROR = "error"


class RenderSource(StrEnum):
    PNG = "png"            # the PNG that came with it, stored as an ok render
    QUEUED = "queued"      # a pending render for the workers (or for --now)
    EXISTING = "existing"  # a render made earlier (re-import)


# The report's per-item lists, by outcome.
LIST_KEYS = {Outcome.IMPORTED: "imported", Outcome.SKIPPED: "skipped", Outcome.ERROR: "errors"}


@dataclass(frozen=True)
class ItemResult:
    name: str                 # file name in the input, or "file.jsonl line 12"
    outcome: Outcome
    code: str = ""            # an ErrorCode, or "already_imported"
    message: str = ""
    sketch_id: int | None = None
    render_id: int | None = None
    render: str = ""          # a RenderSource
    grades: int = 0           # grades recorded for it


@dataclass
class ImportReport:
    source: str
    kind: str                 # folder | zip | jsonl
    total: int = 0
    items: list[ItemResult] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # files that are neither sketch nor render
    pending_render_ids: list[int] = field(default_factory=list)

    def add(self, result: ItemResult) -> None:
        self.items.append(result)
        if result.render == RenderSource.QUEUED and result.render_id is not None:
            self.pending_render_ids.append(result.render_id)

    @property
    def done(self) -> int:
        return len(self.items)

    @property
    def errors(self) -> list[ItemResult]:
        return [r for r in self.items if r.outcome == Outcome.ERROR]

    @property
    def counts(self) -> dict[str, int]:
        def n(predicate) -> int:
            return sum(1 for r in self.items if predicate(r))

        return {
            "imported": n(lambda r: r.outcome == Outcome.IMPORTED),
            "rendered_from_png": n(lambda r: r.render == RenderSource.PNG),
            "queued_for_render": n(lambda r: r.render == RenderSource.QUEUED),
            "skipped_already_imported": n(lambda r: r.outcome == Outcome.SKIPPED),
            "errors": n(lambda r: r.outcome == Outcome.ERROR),
            "grades": sum(r.grades for r in self.items),
        }

    def summary(self) -> str:
        c = self.counts
        return (f"{c['imported']} imported ({c['rendered_from_png']} with their PNG, "
                f"{c['queued_for_render']} to render), {c['skipped_already_imported']} "
                f"already imported, {c['errors']} errors, {c['grades']} grades")

    def to_dict(self) -> dict:
        """JSON for ImportJob.report and `import_renders --json`."""
        out: dict = {"source": self.source, "kind": self.kind, "total": self.total,
                     "done": self.done, "counts": self.counts, "omitted": {}}
        for outcome, key in LIST_KEYS.items():
            listed = [r for r in self.items if r.outcome == outcome]
            out[key] = [_item_dict(r) for r in listed[:REPORT_ITEMS_CAP]]
            out["omitted"][key] = max(0, len(listed) - REPORT_ITEMS_CAP)
        out["ignored"] = self.ignored[:REPORT_ITEMS_CAP]
        out["omitted"]["ignored"] = max(0, len(self.ignored) - REPORT_ITEMS_CAP)
        return out


def _item_dict(result: ItemResult) -> dict:
    return {k: (str(v) if isinstance(v, StrEnum) else v)
            for k, v in asdict(result).items() if v not in ("", None, 0) or k == "name"}
