"""The scorers: a render (as a small uint8 image) -> one taste score, on a
Bradley-Terry scale (score(a) - score(b) is the log-odds that a is preferred).

Two kinds, one contract (`Scorer`):
- "cnn": a small convolutional network trained from scratch on the renders,
  the default (no pretrained weights can be downloaded here);
- "backbone": a linear head on frozen embeddings from a local transformers
  vision model (a CLIP or SigLIP folder named by PAINTRL_REWARD_BACKBONE).
  The backbone's weights stay in that folder; the saved model holds the head
  and the folder's path.

A Scorer turns images into the inputs its trainable module reads
(`prepare`: identity for the CNN, embeddings for the backbone), so the
training loop in train.py is the same for both.
"""
from __future__ import annotations

import io
from pathlib import Path

import torch
from torch import nn

from .config import BACKBONE, CNN, KINDS

FORMAT_VERSION = 1


def global_statistics(x: torch.Tensor) -> torch.Tensor:
    """Whole-picture colour and edge statistics of images in [0, 1]
    (N, 3, S, S) -> (N, STATISTICS): what a curator sees at a glance (how
    much is painted, how colourful, how busy) and a small CNN's local filters
    find hard to add up. Computed from the pixels, so nothing but the image
    goes in."""
    grey = x.mean(1)
    top, bottom = x.amax(1), x.amin(1)
    saturation = ((top - bottom) / top.clamp_min(1e-3)).flatten(1)
    rg, yb = (x[:, 0] - x[:, 1]).flatten(1), (0.5 * (x[:, 0] + x[:, 1]) - x[:, 2]).flatten(1)
    colourfulness = torch.sqrt(rg.var(1) + yb.var(1)) + 0.3 * torch.sqrt(
        rg.mean(1) ** 2 + yb.mean(1) ** 2)
    edges = torch.cat([(grey[:, :, 1:] - grey[:, :, :-1]).abs().flatten(1),
                       (grey[:, 1:, :] - grey[:, :-1, :]).abs().flatten(1)], 1)
    flat = grey.flatten(1)
    paper = flat.amax(1, keepdim=True)
    # Colour variety: entropy of a 4 x 4 x 4 colour histogram.
    levels = (x * 3.999).long()
    codes = (levels[:, 0] * 16 + levels[:, 1] * 4 + levels[:, 2]).flatten(1)
    offsets = torch.arange(x.shape[0], device=x.device)[:, None] * 64
    counts = torch.bincount((codes + offsets).flatten(), minlength=x.shape[0] * 64)
    share = counts.view(x.shape[0], 64).float() / codes.shape[1]
    entropy = -(share * share.clamp_min(1e-9).log()).sum(1)
    return torch.stack([
        *x.mean((2, 3)).T, *x.std((2, 3)).T, saturation.mean(1), saturation.std(1),
        colourfulness, entropy, edges.mean(1), (edges > 0.1).float().mean(1),
        ((paper - flat) > 0.08).float().mean(1), flat.std(1)], dim=1)


STATISTICS = 14  # global_statistics' columns


class TasteCNN(nn.Module):
    """Four strided convolutions, mean- and max-pooled, joined by the
    picture's global statistics, into a small MLP (144k parameters). At
    width 24 and 64 px a forward pass is ~12M multiply-adds: an epoch over a
    thousand renders takes seconds on one thread (benchmarks/reward_speed.py;
    docs/benchmarks.md)."""

    def __init__(self, width: int = 24, statistics: bool = True):
        super().__init__()

        def block(c_in: int, c_out: int, kernel: int, stride: int) -> list[nn.Module]:
            return [nn.Conv2d(c_in, c_out, kernel, stride, kernel // 2, bias=False),
                    nn.BatchNorm2d(c_out), nn.ReLU(inplace=True)]

        self.features = nn.Sequential(
            *block(3, width, 5, 2), *block(width, 2 * width, 3, 2),
            *block(2 * width, 4 * width, 3, 2), *block(4 * width, 4 * width, 3, 1))
        self.statistics = nn.BatchNorm1d(STATISTICS) if statistics else None
        extra = STATISTICS if statistics else 0
        self.head = nn.Sequential(nn.Linear(8 * width + extra, 32), nn.ReLU(inplace=True),
                                  nn.Linear(32, 1))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = images.float() / 255.0
        features = self.features(x * 2.0 - 1.0)
        pooled = [features.mean(dim=(2, 3)), features.amax(dim=(2, 3))]
        if self.statistics is not None:
            pooled.append(self.statistics(global_statistics(x)))
        return self.head(torch.cat(pooled, dim=1)).squeeze(1)

    @staticmethod
    def augment(images: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """Mirror half the batch and shift it all by a few pixels: a painting
        mirrored or nudged is no better or worse."""
        flip = torch.rand(images.shape[0], generator=generator) < 0.5
        images = torch.where(flip[:, None, None, None], images.flip(3), images)
        limit = max(1, images.shape[-1] // 16)
        dy, dx = torch.randint(-limit, limit + 1, (2,), generator=generator).tolist()
        return torch.roll(images, shifts=(dy, dx), dims=(2, 3))


class EmbeddingHead(nn.Module):
    """A linear score on standardised embeddings (a linear probe: with a few
    thousand grades, more capacity than this overfits)."""

    def __init__(self, dim: int):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("std", torch.ones(dim))
        self.linear = nn.Linear(dim, 1)

    def fit_standardisation(self, embeddings: torch.Tensor) -> None:
        self.mean.copy_(embeddings.mean(0))
        self.std.copy_(embeddings.std(0).clamp_min(1e-6))

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return self.linear((embeddings - self.mean) / self.std).squeeze(1)

    @staticmethod
    def augment(inputs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        return inputs


class BackboneEmbedder:
    """Frozen image embeddings from a local transformers folder."""

    def __init__(self, path: str | Path):
        from transformers import AutoImageProcessor, AutoModel

        self.path = str(path)
        # local_files_only: never reach for the hub, whatever the folder says.
        self.processor = AutoImageProcessor.from_pretrained(self.path, local_files_only=True)
        self.model = AutoModel.from_pretrained(self.path, local_files_only=True).eval()

    @property
    def image_size(self) -> int:
        """The side the backbone expects, so renders are decoded once at it."""
        for size in (getattr(self.processor, "crop_size", None),
                     getattr(self.processor, "size", None)):
            if isinstance(size, int):
                return size
            # A dict in older transformers, a SizeDict object in newer ones.
            for name in ("height", "shortest_edge"):
                value = size.get(name) if isinstance(size, dict) else getattr(size, name, None)
                if value:
                    return int(value)
        return 224

    @torch.no_grad()
    def embed(self, images: torch.Tensor, batch_size: int = 32) -> torch.Tensor:
        chunks = []
        for start in range(0, images.shape[0], batch_size):
            batch = images[start:start + batch_size]
            pixels = self.processor(images=list(batch.permute(0, 2, 3, 1).numpy()),
                                    return_tensors="pt")["pixel_values"]
            if hasattr(self.model, "get_image_features"):
                out = self.model.get_image_features(pixel_values=pixels)
            else:
                out = self.model(pixel_values=pixels)
            if not isinstance(out, torch.Tensor):
                pooled = getattr(out, "pooler_output", None)
                out = pooled if pooled is not None else out.last_hidden_state.mean(1)
            chunks.append(out.float())
        return torch.cat(chunks)


class Scorer:
    """A trainable module plus how images become its inputs. `score` is what
    scoring.py calls; `to_bytes`/`from_bytes` are the weights file."""

    def __init__(self, kind: str, module: nn.Module, image_size: int,
                 hparams: dict | None = None, backbone: BackboneEmbedder | None = None):
        if kind not in KINDS:
            raise ValueError(f"unknown scorer kind {kind!r}: expected one of {', '.join(KINDS)}")
        self.kind, self.module, self.image_size = kind, module, image_size
        self.hparams = hparams or {}
        self.backbone = backbone

    def prepare(self, images: torch.Tensor) -> torch.Tensor:
        return images if self.backbone is None else self.backbone.embed(images)

    @torch.no_grad()
    def score_inputs(self, inputs: torch.Tensor, batch_size: int = 256) -> torch.Tensor:
        self.module.eval()
        if inputs.shape[0] == 0:
            return torch.zeros(0)
        return torch.cat([self.module(inputs[i:i + batch_size])
                          for i in range(0, inputs.shape[0], batch_size)])

    def score(self, images: torch.Tensor, batch_size: int = 256) -> torch.Tensor:
        """Scores for uint8 images (N, 3, image_size, image_size)."""
        return self.score_inputs(self.prepare(images), batch_size)

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        torch.save({"format": FORMAT_VERSION, "kind": self.kind, "image_size": self.image_size,
                    "hparams": self.hparams,
                    "backbone": self.backbone.path if self.backbone else "",
                    "state_dict": self.module.state_dict()}, buffer)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Scorer:
        # weights_only: a weights file is data, never code to unpickle.
        saved = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        if saved.get("format") != FORMAT_VERSION:
            raise ValueError(f"reward model file format {saved.get('format')!r} is not "
                             f"{FORMAT_VERSION}: retrain the model")
        scorer = build_scorer(saved["kind"], image_size=saved["image_size"],
                              hparams=saved["hparams"], backbone_path=saved["backbone"] or None,
                              input_dim=_head_dim(saved["state_dict"]))
        scorer.module.load_state_dict(saved["state_dict"])
        scorer.module.eval()
        return scorer


def _head_dim(state_dict: dict) -> int | None:
    weight = state_dict.get("linear.weight")
    return int(weight.shape[1]) if weight is not None else None


def build_scorer(kind: str, *, image_size: int = 64, hparams: dict | None = None,
                 backbone_path: str | Path | None = None,
                 input_dim: int | None = None) -> Scorer:
    """A fresh (untrained) scorer. For "backbone", the embedding size is read
    from the backbone unless `input_dim` is given."""
    hparams = dict(hparams or {})
    if kind == CNN:
        module = TasteCNN(width=hparams.setdefault("width", 24),
                          statistics=hparams.setdefault("statistics", True))
        return Scorer(CNN, module, image_size, hparams)
    if kind == BACKBONE:
        if not backbone_path:
            raise ValueError("a backbone scorer needs a backbone folder "
                             "(set PAINTRL_REWARD_BACKBONE)")
        embedder = BackboneEmbedder(backbone_path)
        if input_dim is None:
            probe = torch.full((1, 3, embedder.image_size, embedder.image_size), 255,
                               dtype=torch.uint8)
            input_dim = embedder.embed(probe).shape[1]
        return Scorer(BACKBONE, EmbeddingHead(input_dim), embedder.image_size, hparams,
                      backbone=embedder)
    raise ValueError(f"unknown scorer kind {kind!r}: expected one of {', '.join(KINDS)}")
