"""What can go wrong with one imported item, named. Every per-item problem is
an ItemError with one of these codes; the import records it and moves on.
A problem with the input as a whole (no such path, not a zip) is an
ImportInputError, the one failure that stops an import."""
from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    NOT_UTF8 = "not_utf8"                # a .js file or a JSONL line that is not UTF-8 text
    FILE_TOO_LARGE = "file_too_large"    # over PAINTRL_IMPORT_MAX_FILE_BYTES / _MAX_PNG_BYTES
    UNSAFE_PATH = "unsafe_path"          # ../x.js, /abs.js, C:\x.js, a symlink
    ZIP_BOMB = "zip_bomb"                # compression ratio or archive total over its limit
    CORRUPT_ENTRY = "corrupt_entry"      # bad CRC, encrypted, unknown compression
    NOT_PNG = "not_png"                  # the file named as a render is another format
    IMAGE_TOO_LARGE = "image_too_large"  # more pixels than PAINTRL_IMPORT_MAX_IMAGE_PIXELS
    CORRUPT_IMAGE = "corrupt_image"      # a PNG that does not decode
    DUPLICATE_FILE = "duplicate_file"    # the same code twice in one import
    BAD_LINE = "bad_line"                # a manifest or JSONL line that is not a valid record
    MISSING_FILE = "missing_file"        # a manifest entry names a file that is not there
    EMPTY_CODE = "empty_code"            # a sketch with no code in it
    BAD_GRADES = "bad_grades"            # grades the grades handler refused
    INTERNAL_ERROR = "internal_error"    # our bug or a database failure; logged with traceback


class ItemError(Exception):
    """One item could not be imported; the rest of the import goes on."""

    def __init__(self, code: ErrorCode, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ImportInputError(Exception):
    """The input as a whole cannot be imported (missing, unreadable, wrong kind)."""
