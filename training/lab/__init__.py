"""The replay lab: re-score chosen renders with one or two rubrics, offline
on a worker, and show which signals carry information (training.diagnostics)."""
