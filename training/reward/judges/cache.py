"""A database cache in front of a slow or paid judge: each question about
the same pictures is asked once per judge (JudgeVerdict rows, keyed by the
pictures' hashes). Only answers are stored; a None is asked again next time."""
from __future__ import annotations

from collections.abc import Sequence

from django.apps import apps

from .base import JudgeBackend, Picture


def _verdicts():
    """The JudgeVerdict model, from Django's registry: the models import the
    judges' registry (a Judge's backend choices), so the judges name the
    model rather than import it."""
    return apps.get_model("training", "JudgeVerdict")


class CachedJudge(JudgeBackend):
    def __init__(self, inner: JudgeBackend):
        super().__init__()
        self.inner = inner
        self.key = inner.key
        self.questions = inner.questions
        self.notices = inner.notices  # one list: the inner judge's notices show
        self.hits = self.misses = 0

    def cannot_answer(self, question, params):
        return self.inner.cannot_answer(question, params)

    def preference(self, pictures, prompts):
        return self._ask("preference", [(p.sha256, "") for p in pictures], prompts,
                         lambda idx: self.inner.preference([pictures[i] for i in idx],
                                                           [prompts[i] for i in idx]))

    def compare(self, pairs, prompts):
        return self._ask("compare", [(a.sha256, b.sha256) for a, b in pairs], prompts,
                         lambda idx: self.inner.compare([pairs[i] for i in idx],
                                                        [prompts[i] for i in idx]))

    def rate(self, pictures, prompts, criterion):
        # Adherence depends on the prompt, so the prompt is part of its key.
        keys = [(p.sha256, _prompt_key(prompt) if criterion == "adherence" else "")
                for p, prompt in zip(pictures, prompts, strict=True)]
        return self._ask(f"rate:{criterion}", keys, prompts,
                         lambda idx: self.inner.rate([pictures[i] for i in idx],
                                                     [prompts[i] for i in idx], criterion))

    def _ask(self, question: str, keys: Sequence[tuple[str, str]], prompts, ask) -> list:
        known = {(row.image, row.reference): row.value for row in _verdicts().objects.filter(
            judge_key=self.key, question=question,
            image__in={image for image, _ in keys})}
        answers: list[float | None] = [known.get(key) for key in keys]
        missing = [i for i, value in enumerate(answers) if value is None]
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if missing:
            fresh = ask(missing)
            rows = {}
            for i, value in zip(missing, fresh, strict=True):
                answers[i] = value
                if value is not None:
                    image, reference = keys[i]
                    rows[keys[i]] = _verdicts()(judge_key=self.key, question=question,
                                                 image=image, reference=reference, value=value)
            _verdicts().objects.bulk_create(rows.values(), ignore_conflicts=True)
        return answers


def _prompt_key(prompt: str) -> str:
    import hashlib

    return "prompt:" + hashlib.sha256(prompt.encode()).hexdigest()[:56]


__all__ = ["CachedJudge", "Picture"]
