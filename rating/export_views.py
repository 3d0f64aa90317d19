"""Download grades: JSONL streamed line by line, the dataset as a zip; the
preference dataset as a zip of its folder; and comparisons as JSONL."""
from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from . import comparison_transfer, export, preference_export
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
@staff_required(reason="Only staff can export grades.")
def export_preferences(request):
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "paintrl-preferences"
        try:
            preference_export.write_folder(folder)
        except ValueError as exc:
            return HttpResponse(f"Nothing to export: {exc}.", status=404,
                                content_type="text/plain; charset=utf-8")
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        with zipfile.ZipFile(spool, "w") as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    # Parquet is compressed already; README.md is small.
                    archive.write(path, path.relative_to(folder.parent))
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, content_type="application/zip",
                        filename=f"paintrl-preferences-{_stamp()}.zip")


@require_GET
@staff_required(reason="Only staff can export comparisons.")
def export_comparisons(request):
    response = StreamingHttpResponse(comparison_transfer.jsonl_lines(),
                                     content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="paintrl-comparisons-{_stamp()}.jsonl"')
    return response
