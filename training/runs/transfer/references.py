"""Import: the rows the run's foreign keys name (rubric, system prompt, prompt
set, judge and scorer, pool snapshot), found in this database or created as
"<name> (imported)" copies."""
from __future__ import annotations

from django.core.exceptions import ValidationError

from pool.models import PoolSnapshot
from training.models import Judge, PromptSet, Rubric, SystemPrompt
from training.reward.judges import DEFAULT_BACKEND

from .common import IMPORTED, RUN_FILE, TransferError


def _imported_name(name: str, max_length: int) -> str:
    return f"{name[:max_length - len(IMPORTED)]}{IMPORTED}"


def _ref(value, what: str) -> dict:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise TransferError(f"{RUN_FILE}: references.{what} is missing or has no name")
    version = value.get("version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise TransferError(f"{RUN_FILE}: references.{what}.version is not a number")
    return value


def _same(rows, attribute: str, content):
    """The first row whose `attribute` equals `content`, compared in Python:
    JSON key order differs between databases (PostgreSQL's jsonb sorts keys)."""
    return next((row for row in rows if getattr(row, attribute) == content), None)


def _launched(launched: dict, key: str, content: str, fallback):
    copy = launched.get(key)
    return copy.get(content, fallback) if isinstance(copy, dict) else fallback


def rubric(ref, launched: dict, notices: list[str]) -> Rubric:
    """The same name and version with the signals the run was launched with;
    else an earlier import's copy; else a new "<name> (imported)" rubric."""
    ref = _ref(ref, "rubric")
    signals = _launched(launched, "rubric", "signals", ref.get("signals"))
    found = _same(Rubric.objects.filter(name=ref["name"], version=ref.get("version")),
                  "signals", signals)
    if found is not None:
        return found
    copy_name = _imported_name(ref["name"], 80)
    found = _same(Rubric.objects.filter(name=copy_name).order_by("-version"), "signals", signals)
    if found is None:
        found = Rubric.objects.create(
            name=copy_name, signals=signals,
            description=f"The signals of rubric {ref['name']} (rev. {ref.get('version')}) as "
                        "an imported training run was launched with them.")
    notices.append(f"Rubric {ref['name']} (rev. {ref.get('version')}) with the run's signals "
                   f"is not in this database: the run uses {found}.")
    return found


def system_prompt(ref, launched: dict, notices: list[str]) -> SystemPrompt:
    ref = _ref(ref, "system_prompt")
    text = _launched(launched, "system_prompt", "text", ref.get("text"))
    if not isinstance(text, str):
        raise TransferError(f"{RUN_FILE}: the system prompt's text is missing")
    found = _same(SystemPrompt.objects.filter(name=ref["name"], version=ref.get("version")),
                  "text", text)
    if found is not None:
        return found
    copy_name = _imported_name(ref["name"], 80)
    found = _same(SystemPrompt.objects.filter(name=copy_name).order_by("-version"), "text",
                  text)
    if found is None:
        found = SystemPrompt.objects.create(name=copy_name, text=text)
    notices.append(f"System prompt {ref['name']} (rev. {ref.get('version')}) with the run's "
                   f"text is not in this database: the run uses {found}.")
    return found


def prompt_set(ref, launched: dict, notices: list[str]) -> PromptSet:
    ref = _ref(ref, "prompt_set")
    prompts = launched.get("prompts", ref.get("prompts"))
    if not isinstance(prompts, list):
        raise TransferError(f"{RUN_FILE}: the run's prompts are missing")
    found = _same(PromptSet.objects.filter(name=ref["name"]), "prompts", prompts)
    if found is not None:
        return found
    base = _imported_name(ref["name"], 110)
    for number in range(1, 1000):
        candidate = base if number == 1 else f"{base[:-1]} {number})"
        row = PromptSet.objects.filter(name=candidate).first()
        if row is None:
            found = PromptSet.objects.create(
                name=candidate, prompts=prompts,
                description=f"The prompts of {ref['name']!r} as an imported run used them.")
            break
        if row.prompts == prompts:
            found = row
            break
    else:
        raise TransferError(f"too many imported copies of prompt set {ref['name']!r}")
    notices.append(f"Prompt set {ref['name']!r} with the run's prompts is not in this database: "
                   f"the run uses {found.name!r}.")
    return found


def judge(ref, role: str, notices: list[str]) -> Judge:
    """The judge of that name; else one created with its name and backend
    (a run's judge cannot be empty) and no endpoint, said in a notice."""
    ref = _ref(ref, role)
    found = Judge.objects.filter(name=ref["name"]).first()
    if found is not None:
        return found
    copy_name = _imported_name(ref["name"], 80)
    found = Judge.objects.filter(name=copy_name).first()
    if found is None:
        found = Judge(name=copy_name, backend=ref.get("backend") or DEFAULT_BACKEND,
                      model=ref.get("model") or "")
        try:
            found.full_clean()
        except ValidationError as exc:
            raise TransferError(f"{RUN_FILE}: references.{role}: {exc}") from exc
        found.save()
        notices.append(f"Judge {ref['name']!r} is not in this database: created {copy_name!r} "
                       "with its backend and model, without an endpoint.")
    else:
        notices.append(f"Judge {ref['name']!r} is not in this database: the run's {role} is "
                       f"{copy_name!r}.")
    return found


def snapshot(ref, notices: list[str]) -> PoolSnapshot | None:
    if ref is None:
        return None
    ref = _ref(ref, "snapshot")
    found = PoolSnapshot.objects.filter(name=ref["name"]).first()
    if found is None:
        notices.append(f"Pool snapshot {ref['name']!r} is not in this database: the run "
                       "names none.")
    return found
