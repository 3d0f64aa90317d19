"""Does a render spell words? The check on the final PNG of every render the
gate passes.

A vision judge trusts words in a picture over what it sees ("BEST PAINTING",
"10/10"), and `text()` being refused does not stop a sketch from laying the
letters with honest brush strokes. So the picture itself is read, with an OCR
engine that runs offline on the CPU and carries its models inside its package
(rapidocr-onnxruntime: PP-OCR's text detector and recogniser as ONNX files).
docs/renderer.md, "Painted words", says why this engine and how its cost is
bounded; benchmarks/painted_words.py measures the catch rate, the honest
paintings flagged and the time against a render's.

Pure: PNG bytes in, words out. rendering.render_text decides what the words
mean for the verdict (a violation, or a flag only: RendererConfig.painted_words).
"""
from __future__ import annotations

import io
import threading
import time
from dataclasses import dataclass

import numpy as np
from PIL import Image
from rapidocr_onnxruntime import RapidOCR

# The longest side the OCR reads, in pixels: a larger render is scaled down to
# it first. Bounds the detector's work (it grows with the pixels) whatever the
# canvas; a word too small to read at this size is small for a judge too, which
# sees the picture scaled down as well. benchmarks/painted_words.py measures
# the catch rate and the time at this size.
OCR_MAX_SIDE = 512
# The recogniser reads at most this many of the detector's boxes, the largest
# first: it costs a few milliseconds a box, and a painting of dense strokes may
# offer hundreds of candidates. Words a judge would read are among the largest.
MAX_BOXES = 12
# A box's text counts when the recogniser is at least this sure of it (the
# engine's own default for keeping a result) and it holds at least MIN_CHARS
# letters or digits: one letter is what a curve or a bloom is read as
# (benchmarks/painted_words.py lists the honest paintings' boxes); two already
# make a score ("10") or a word ("OK").
MIN_SCORE = 0.5
MIN_CHARS = 2


@dataclass(frozen=True)
class PaintedWord:
    text: str
    score: float
    # (left, top, right, bottom) in the PNG's pixels.
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class WordsRead:
    words: tuple[PaintedWord, ...]
    ocr_ms: float

    def describe(self) -> str:
        """The words and their boxes, as a render's details show them."""
        return "; ".join(f'"{w.text}" at ({w.box[0]}, {w.box[1]})-({w.box[2]}, {w.box[3]})'
                         for w in self.words)


_engine: RapidOCR | None = None
# One engine a process (loading it costs about half a second), one read at a
# time: the engine keeps per-call state, and a read is short next to a render.
_lock = threading.Lock()


def _ocr() -> RapidOCR:
    global _engine
    if _engine is None:
        # One thread each: a render worker already keeps every core busy with
        # its browsers. `max` keeps the detector at the size it is given (its
        # default, `min`, scales a 400 px picture up to 736 px first). No
        # angle classifier: it only turns upside-down lines round.
        _engine = RapidOCR(det_limit_type="max", intra_op_num_threads=1,
                           inter_op_num_threads=1, use_cls=False)
    return _engine


def read_words(png: bytes) -> WordsRead:
    """The words painted in `png`. Raises ValueError for bytes that are not an
    image."""
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"not a readable image: {exc}") from exc
    scale = min(1.0, OCR_MAX_SIDE / max(image.size))
    if image.mode != "RGB":
        # Transparent paper reads as white paper.
        image = Image.alpha_composite(Image.new("RGBA", image.size, "white"),
                                      image.convert("RGBA")).convert("RGB")
    if scale < 1:
        image = image.resize((max(1, round(image.width * scale)),
                              max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    bgr = np.ascontiguousarray(np.asarray(image)[:, :, ::-1])  # the engine reads OpenCV's order
    with _lock:
        start = time.perf_counter()
        found = _read(_ocr(), bgr)
        elapsed = (time.perf_counter() - start) * 1000
    words = tuple(PaintedWord(text, score, tuple(round(v / scale) for v in box))
                  for text, score, box in found)
    return WordsRead(words, elapsed)


def _read(engine: RapidOCR, bgr: np.ndarray) -> list[tuple[str, float, tuple]]:
    """Detect text boxes, read the MAX_BOXES largest, keep the ones that count."""
    boxes, _ = engine.text_det(bgr)
    if boxes is None or len(boxes) == 0:
        return []
    boxes = sorted(boxes, key=_area, reverse=True)[:MAX_BOXES]
    crops = engine.get_crop_img_list(bgr, np.array(boxes))
    texts, _ = engine.text_rec(crops)
    found = []
    for box, (text, score) in zip(boxes, texts, strict=True):
        if score >= MIN_SCORE and sum(c.isalnum() for c in text) >= MIN_CHARS:
            xs, ys = box[:, 0], box[:, 1]
            found.append((text.strip(), round(float(score), 3),
                          (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))))
    return found


def _area(box: np.ndarray) -> float:
    return float((box[:, 0].max() - box[:, 0].min()) * (box[:, 1].max() - box[:, 1].min()))
