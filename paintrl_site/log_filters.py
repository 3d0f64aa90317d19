"""Logging filters named in settings.LOGGING."""
from __future__ import annotations

import logging


class RefusalOneLine(logging.Filter):
    """A request refused with a 4xx (django.request logs a PermissionDenied
    with its traceback) becomes one line that ends with the reason the access
    check gave ("Forbidden (Permission denied): /jobs/: Only staff can see the
    jobs page."). A 5xx keeps its traceback: that one is a fault to read."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if status is None or not 400 <= status < 500 or not record.exc_info:
            return True
        reason = record.exc_info[1]
        record.msg, record.args = record.getMessage(), ()
        if reason is not None and str(reason):
            record.msg = f"{record.msg}: {reason}"
        record.exc_info = record.exc_text = None
        return True
