"""The upload form and its size limit. The limit is enforced while the body
streams in, not after Django has spooled all of it to a temporary file."""
from __future__ import annotations

import zipfile

from django import forms
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.template.defaultfilters import filesizeformat

from ..brush_api import AUTO_BRUSH
from ..models import BRUSH_CHOICES
from .conf import max_upload_bytes

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip with members, an empty zip
JSONL_SUFFIXES = (".jsonl", ".ndjson")
# Multipart framing and the other form fields around the file.
BODY_SLACK_BYTES = 64 * 1024


def body_too_large(request) -> bool:
    """The declared request body is over the limit: refuse before reading it."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > max_upload_bytes() + BODY_SLACK_BYTES


class SizeLimitUploadHandler(FileUploadHandler):
    """Stops reading the upload once it passes the limit (a body without a
    Content-Length, or one that lied about it). Install it first, before the
    request body is read."""

    def __init__(self, request=None):
        super().__init__(request)
        self.limit = max_upload_bytes()
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise StopUpload(connection_reset=True)
        return raw_data  # the next handler stores it

    def file_complete(self, file_size):
        return None


class ImportUploadForm(forms.Form):
    archive = forms.FileField(
        label="Zip or JSONL file",
        help_text="A zip of .js sketches with an optional manifest.jsonl, or a .jsonl file "
                  "of {\"prompt\", \"code\"} lines.")
    brush = forms.ChoiceField(
        label="p5.brush", choices=BRUSH_CHOICES, initial=AUTO_BRUSH, required=False,
        help_text="The version the sketches render with, unless a manifest line names its own "
                  "(\"brush\"). Auto: sketches from outside are written for 1.x or 2.x, so "
                  "each renders with the version its calls are written for.")

    def __init__(self, *args, upload_handler: SizeLimitUploadHandler | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.upload_handler = upload_handler
        self.kind = ""
        if self.upload_stopped:  # the file never arrived; say why, not "required"
            self.fields["archive"].required = False

    @property
    def upload_stopped(self) -> bool:
        return self.upload_handler is not None and self.upload_handler.exceeded

    def clean(self):
        if self.upload_stopped:
            raise forms.ValidationError(self.too_large_message())
        return super().clean()

    def clean_archive(self):
        upload = self.cleaned_data["archive"]
        if upload is None:  # stopped by the upload handler; clean() says why
            return upload
        if upload.size > max_upload_bytes():
            raise forms.ValidationError(self.too_large_message())
        head = upload.read(4)
        upload.seek(0)
        if head in ZIP_MAGIC:
            # A zip whose index cannot be read is refused in the answer to the
            # upload, not later in its job (which checks the same way).
            readable = zipfile.is_zipfile(upload)
            upload.seek(0)
            if not readable:
                raise forms.ValidationError(f"{upload.name} starts as a zip archive does but "
                                            "cannot be read as one.")
            self.kind = "zip"
        elif (upload.name or "").lower().endswith(JSONL_SUFFIXES):
            self.kind = "jsonl"
        else:
            raise forms.ValidationError("Upload a .zip archive or a .jsonl file.")
        return upload

    def clean_brush(self) -> str:
        return self.cleaned_data.get("brush") or AUTO_BRUSH  # a form posted without it

    @staticmethod
    def too_large_message() -> str:
        return f"The file is larger than the limit of {filesizeformat(max_upload_bytes())}."
