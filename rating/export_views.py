"""Download grades: JSONL streamed line by line, the dataset as a zip; and
comparisons as JSONL."""
from __future__ import annotations

import tempfile

from django.http import FileResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from . import comparison_transfer, export
from .access import staff_required

# The zip stays in memory up to this size, then spills to a temporary file.
SPOOL_BYTES = 32 * 1024 * 1024


def _stamp() -> str:
    return timezone.now().strftime("%Y%m%d-%H%M%S")


@require_GET
@staff_required(reason="Only staff can export grades.")
def export_jsonl(request):
    def png_url(render) -> str:
        return request.build_absolute_uri(reverse("sketches:render_png", args=[render.pk]))

    response = StreamingHttpResponse(export.jsonl_lines(png_url),
                                     content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="paintrl-grades-{_stamp()}.jsonl"'
    return response


@require_GET
@staff_required(reason="Only staff can export grades.")
def export_dataset(request):
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    export.dataset_write_zip(spool)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, content_type="application/zip",
                        filename=f"paintrl-grades-{_stamp()}.zip")


@require_GET
@staff_required(reason="Only staff can export comparisons.")
def export_comparisons(request):
    response = StreamingHttpResponse(comparison_transfer.jsonl_lines(),
                                     content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="paintrl-comparisons-{_stamp()}.jsonl"')
    return response
