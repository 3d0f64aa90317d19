"""GEPA's reflection model: any OpenAI-compatible chat endpoint, configured
by a Judge row of backend `openai` (its base URL, model, key variable,
timeout and retries, read by judges.openai_compat.endpoint_settings, the
judges' own reader). A Judge row rather than fields of the job's own: one
place holds endpoint settings and the rule on which variables may hold a key.

GEPA calls the model as `reflection_lm(prompt) -> text` and swallows what the
call raises (it retries the proposal once, then skips it). A model that does
not answer would then spend the whole budget on evaluations with no new
candidate, so a failure is also kept in `failure`, where the job's stopper
(job.py) reads it and ends the job failed, saying why."""
from __future__ import annotations

from ..reward.judges import JudgeUnavailable
from ..reward.judges.openai_compat import chat_completion, endpoint_settings

# Room for a rewritten system prompt (the allow-list is about 350 tokens) and
# a few sentences around its ``` block.
MAX_TOKENS = 2048
# Sampled, not greedy: GEPA reflects on the same parent more than once, and
# the same feedback should be able to give a different proposal.
TEMPERATURE = 1.0
# The launch check's question: answered in a word by any chat model.
CHECK_PROMPT = "Reply with the single word: ready."


class ReflectionUnavailable(RuntimeError):
    """The reflection model cannot be asked (configuration) or did not answer."""


def reflection_endpoint(judge) -> dict:
    """The endpoint settings of a Judge row of backend openai
    (judges.openai_compat.endpoint_settings); ReflectionUnavailable says what is
    wrong with any other row, or one with no URL or model."""
    if judge.backend != "openai":
        raise ReflectionUnavailable(
            f"reflection model {judge.name!r} is a {judge.backend} judge: choose a judge row "
            "of backend openai (an OpenAI-compatible chat endpoint)")
    try:
        return endpoint_settings(judge)
    except JudgeUnavailable as error:
        raise ReflectionUnavailable(f"reflection model: {error}") from error


class ReflectionModel:
    def __init__(self, *, base_url: str, model: str, api_key: str | None, timeout_s: float,
                 retries: int):
        self.base_url, self.model, self._api_key = base_url, model, api_key
        self.timeout_s, self.retries = timeout_s, retries
        self.calls = 0
        self.failure: str | None = None

    @classmethod
    def from_judge(cls, judge) -> ReflectionModel:
        """The model a Judge row configures (reflection_endpoint). Unlike a
        judge, a named key variable that is unset is an error: a reflection
        model is asked for every candidate, and a job that learns of a refused
        key only after sampling the seed has wasted that work."""
        settings = reflection_endpoint(judge)
        if judge.api_key_env and settings["api_key"] is None:
            raise ReflectionUnavailable(
                f"reflection model {judge.name!r}: the variable {judge.api_key_env} that should "
                "hold its API key is not set on the train worker (set it, or clear the judge's "
                "api_key_env for an endpoint that takes no key)")
        return cls(**settings)

    def __call__(self, prompt: str | list[dict]) -> str:
        """GEPA's reflection call: its prompt (a text, or chat messages when
        the feedback carries images) -> the reply."""
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        reply = self._ask(messages, MAX_TOKENS)
        self.calls += 1
        return reply

    def check(self) -> None:
        """Ask one short question before any sampling: a wrong URL, model or key
        fails the job at once (ReflectionUnavailable)."""
        self._ask([{"role": "user", "content": CHECK_PROMPT}], 8)

    def _ask(self, messages: list[dict], max_tokens: int) -> str:
        reply, reason = chat_completion(
            base_url=self.base_url, model=self.model, api_key=self._api_key, messages=messages,
            max_tokens=max_tokens, timeout_s=self.timeout_s, retries=self.retries,
            temperature=TEMPERATURE)
        if reply is None or not reply.strip():
            why = reason or "an empty reply"
            if reason in ("HTTP 401", "HTTP 403") and not self._api_key:
                why += " (no API key was sent: set the variable the judge's api_key_env names)"
            self.failure = (f"the reflection model {self.model} at {self.base_url} did not "
                            f"answer: {why}, after {self.retries + 1} tries")
            raise ReflectionUnavailable(self.failure)
        return reply
