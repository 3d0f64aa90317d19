"""A training run moved between databases: `run_export` writes a finished
run's record (settings, what it was launched with, steps, rollouts with their
sketches, renders and PNGs) as a folder or a zip; `run_import` reads one back
as a new, finished run whose rows look to the run page like the worker's.

    run.json         format, the run's fields (launched_config holds the rubric
                     signals, system prompt text and prompts it used), the rows
                     its foreign keys named, counts, what was not exported
    steps.jsonl      one TrainingStep per line
    rollouts.jsonl   one Rollout per line, with its "sketch" and "render" (the
                     render's "png" names a file under png/, "png_sha256" its hash)
    png/0002-01-03.png   step 2, group 1, generation 3

Checkpoints and the final policy are not exported (hundreds of megabytes for a
real model): run.json records where they were. An imported run therefore
cannot be resumed from its checkpoint.

An import is one transaction: the input is parsed and checked first, then
every row is written; a failure (a bad PNG, a row the database refuses) rolls
back every row and deletes the PNG files already written, so nothing is left.
Inputs are read through the render importer's sources (sketches.importing):
the same path checks and size limits as an upload, nothing extracted to disk.

Modules: common (the format's constants, TransferError, the exported
fields), export (`run_export`, `not_exported`), reading (the input parsed and
checked), writing (`run_import`, the transaction), references (the rubric,
system prompt, prompt set, judges and snapshot an imported run points at).
"""
from .common import FORMAT, RUN_FIELDS, STEP_FIELDS, TransferError
from .export import ExportSummary, not_exported, run_export
from .writing import ImportSummary, run_import

__all__ = ["FORMAT", "RUN_FIELDS", "STEP_FIELDS", "ExportSummary", "ImportSummary",
           "TransferError", "not_exported", "run_export", "run_import"]
