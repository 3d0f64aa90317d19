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

# The longest side the detector looks at, in pixels: the render is scaled down
# to it first. The detector's time grows with its pixels and is most of the
# OCR's on a painting with no words, so this bounds the cost whatever the
# canvas; a word too small to find at this size is small for a judge too, which
# sees the picture scaled down as well. benchmarks/painted_words.py measures
# the catch rate and the time at this size.
DETECT_MAX_SIDE = 320
# The longest side of the picture the recogniser's crops are cut from: it
# reads each box at a fixed height (48 px), so cutting from a sharper picture
# costs nothing more and reads small letters better.
OCR_MAX_SIDE = 640
# The recogniser reads at most this many of the detector's boxes, the largest
# first: its time grows with the boxes, and a painting of dense strokes may
# offer hundreds of candidates. Words a judge would read are among the largest.
MAX_BOXES = 12
# A box's text counts when it holds at least MIN_CHARS Latin letters or digits
# and the recogniser is at least MIN_SCORE sure of it (the engine's own default
# for keeping a result), or SHORT_CHARS read at least SHORT_MIN_SCORE sure.
# Painted honestly, a letter or two is what a bloom, a branch or a bird is
# read as, and less surely than painted words are; a painted score or "OK" is
# read clearly. docs/benchmarks.md, "Painted words", has the scores that set
# these, from benchmarks/painted_words.py (which lists what it reads in each
# honest painting it flags). Only Latin letters and digits count: the
# recogniser also reads Chinese, and grass and twigs read as Chinese characters.
MIN_SCORE = 0.5
MIN_CHARS = 3
SHORT_CHARS = 2
SHORT_MIN_SCORE = 0.9


@dataclass(frozen=True)
class PaintedWord:
    text: str
    score: float
    # (left, top, right, bottom) in the PNG's pixels.
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class WordsRead:
    words: tuple[PaintedWord, ...]
    # Wall time of the reading (decoding and scaling the PNG included, the wait
    # for another thread's read not), and the CPU it took (the engine runs in
    # the calling thread): on a loaded machine the first is mostly waiting.
    ocr_ms: float
    cpu_ms: float

    def describe(self) -> str:
        """The words and their boxes, as a render's details show them."""
        return "; ".join(f'"{w.text}" at ({w.box[0]}, {w.box[1]})-({w.box[2]}, {w.box[3]})'
                         for w in self.words)


_engine: RapidOCR | None = None
# One engine a process (it loads its models once), one read at a time: the
# engine keeps per-call state, and a read is short next to a render.
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
    start, cpu_start = time.perf_counter(), time.thread_time()
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"not a readable image: {exc}") from exc
    if image.mode != "RGB":
        # Transparent paper reads as white paper.
        image = Image.alpha_composite(Image.new("RGBA", image.size, "white"),
                                      image.convert("RGBA")).convert("RGB")
    sharp, sharp_scale = _scaled(image, OCR_MAX_SIDE)
    small, small_scale = _scaled(image, DETECT_MAX_SIDE)
    elapsed = time.perf_counter() - start
    with _lock:
        engine = _ocr()
        start = time.perf_counter()  # the wait for the lock is not the read's
        found = _read(engine, small, sharp, sharp_scale / small_scale)
        elapsed += time.perf_counter() - start
    words = tuple(PaintedWord(text, score, tuple(round(v / sharp_scale) for v in box))
                  for text, score, box in found)
    return WordsRead(words, elapsed * 1000, (time.thread_time() - cpu_start) * 1000)


def _scaled(image: Image.Image, side: int) -> tuple[np.ndarray, float]:
    """`image` at most `side` px a side, in the engine's colour order (OpenCV's
    BGR), and the scale it was drawn at."""
    scale = min(1.0, side / max(image.size))
    if scale < 1:
        image = image.resize((max(1, round(image.width * scale)),
                              max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    return np.ascontiguousarray(np.asarray(image)[:, :, ::-1]), scale


def _read(engine: RapidOCR, small: np.ndarray, sharp: np.ndarray,
          ratio: float) -> list[tuple[str, float, tuple]]:
    """Detect text boxes in `small`, read the MAX_BOXES largest from `sharp`
    (`ratio` times larger), keep the ones that count; boxes in `sharp`'s pixels."""
    boxes, _ = engine.text_det(small)
    if boxes is None or len(boxes) == 0:
        return []
    boxes = [box * ratio for box in sorted(boxes, key=_area, reverse=True)[:MAX_BOXES]]
    texts, _ = engine.text_rec(engine.get_crop_img_list(sharp, np.array(boxes, dtype=np.float32)))
    found = []
    for box, (text, score) in zip(boxes, texts, strict=True):
        if _counts(text, score):
            xs, ys = box[:, 0], box[:, 1]
            found.append((text.strip(), round(float(score), 3),
                          (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))))
    return found


def _counts(text: str, score: float) -> bool:
    """Whether a box read as `text`, `score` sure, is painted words."""
    latin = sum(c.isascii() and c.isalnum() for c in text)
    return (latin >= MIN_CHARS and score >= MIN_SCORE
            or latin >= SHORT_CHARS and score >= SHORT_MIN_SCORE)


def _area(box: np.ndarray) -> float:
    return float((box[:, 0].max() - box[:, 0].min()) * (box[:, 1].max() - box[:, 1].min()))
