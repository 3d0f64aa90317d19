"""How a job's settings are declared: once each, as a field of a frozen
dataclass (the job's config), so that everything else about a setting follows
from that one line instead of being written again beside it.

A field made with `setting()` carries in its metadata
- the row's field (a Django model field: type, default, help, choices,
  verbose name), from which `settings_model` builds the abstract model a
  job's row inherits (its admin form follows), or, for a job that stores its
  settings only as JSON (a calibration), `form_fields` its form's fields;
  a setting with choices is checked against them (`choice_problems`),
- its short name where runs are compared or summed up (`label`),
- the admin section that shows it (`sections`: the admin's fieldsets),
- the TRL argument that receives it as it is, or None where the engine
  derives TRL's arguments from it or TRL never sees it (`trl_arguments`:
  training.runs.engine.grpo_args),
- what configs stored before it existed ran with (`stored_before`: a resume
  of such a run trains as it did; the value is not necessarily today's
  default).

`Config` is the base: checks run once in __post_init__ and report every
problem at once, each naming its values; a stored config (from_dict) refuses
keys it does not know and keys it lacks, but for those stored_before fills in.
A new setting is one `setting()` line (and its check) plus its test, and a
migration for the row's new field.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError
from django.db import models


class ConfigError(ValueError):
    """Settings a job cannot run with; `problems` names each, with its values."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def setting(section: str, field: models.Field | None = None, *, trl: str | None = None,
            before: Any = MISSING, default: Any = MISSING, label: str = "") -> Any:
    """A config field (module docstring): `field` is the row's (or the
    form's) field, shown in admin `section`, passed to TRL as argument `trl`
    (None: not as it is), read as `before` from configs stored before it
    existed, named `label` where runs are compared (else the field's verbose
    name). `default` only for settings no row holds (a calibration's, whose
    `field` is its form's): a new job starts from it; where a row holds the
    setting, its field's default is the one."""
    metadata = {"section": section, "trl": trl, "field": field, "label": label}
    if before is not MISSING:
        metadata["before"] = before
    if isinstance(default, dict | list):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default),
                                 metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True, kw_only=True)
class Config:
    """A job's settings (module docstring). Subclasses add fields and extend
    problems(); `error` is the exception their checks raise, `stored_as`
    names them in the refusal of a stored config."""

    error: ClassVar[type[ConfigError]] = ConfigError
    stored_as: ClassVar[str] = "stored settings"

    def __post_init__(self):
        if problems := self.problems():
            raise self.error(problems)

    def problems(self) -> list[str]:
        """Every reason these settings cannot run, each naming its values.
        Subclasses extend it; the base checks each setting with choices."""
        return choice_problems(self)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, source):
        """The settings `source` holds as attributes: a job's row (a draft's,
        at launch: its fields hold the defaults), or a wider config."""
        return cls(**{name: getattr(source, name) for name in cls.names()})

    @classmethod
    def problems_of(cls, source) -> list[str]:
        """`of(source)`'s problems, without raising (a launch lists them all)."""
        try:
            cls.of(source)
        except ConfigError as error:
            return list(error.problems)
        return []

    @classmethod
    def from_dict(cls, values: dict):
        """Settings as a job stored them (to_dict): unknown or missing keys are
        refused, but for those stored_before fills in."""
        values = {**stored_before(cls), **values}
        required = {f.name for f in fields(cls)
                    if f.default is MISSING and f.default_factory is MISSING}
        unknown, missing = set(values) - set(cls.names()), required - set(values)
        if unknown or missing:
            raise cls.error([f"{cls.stored_as}: unknown {sorted(unknown)}, "
                             f"missing {sorted(missing)}"])
        return cls(**values)

    def to_dict(self) -> dict:
        return asdict(self)


def declared_field(f: dataclasses.Field) -> models.Field | None:
    """The Django field setting() declared for config field `f` (None: none)."""
    return f.metadata.get("field")


def label(f: dataclasses.Field) -> str:
    """A setting's short name where runs are compared or summed up."""
    field = declared_field(f)
    return f.metadata.get("label") or (field.verbose_name if field and field.verbose_name
                                        else f.name.replace("_", " "))


def choice_problems(config: Config) -> list[str]:
    """Each setting whose field has choices and whose value is not one of them."""
    problems = []
    for f in fields(config):
        field = declared_field(f)
        if field is None or not field.choices:
            continue
        allowed = [str(value) for value, _ in field.flatchoices]
        if getattr(config, f.name) not in allowed:
            problems.append(f"{f.name} must be one of {', '.join(allowed)}, "
                            f"got {getattr(config, f.name)!r}")
    return problems


def settings_model(config: type[Config], *, name: str, module: str,
                   doc: str = "") -> type[models.Model]:
    """An abstract model with a field per setting of `config` that declares
    one (a copy of it each time, as Django needs), in the config's order: a
    job's row inherits it, so the row holds the defaults a new job starts
    from. Its clean() asks the config, so the admin refuses what a launch
    would, with the same words."""

    def clean(self):
        # The config's fields only: a wider row (a run's name, its rubric)
        # is checked by its own service.
        super(model, self).clean()
        if problems := config.problems_of(self):
            raise ValidationError(problems)

    attrs = {f.name: declared_field(f).clone() for f in fields(config) if declared_field(f)}
    model = type(name, (models.Model,), {
        **attrs, "__module__": module, "__doc__": doc or f"{config.__name__}'s settings.",
        "Meta": type("Meta", (), {"abstract": True}), "clean": clean})
    return model


def form_fields(config: type[Config], names: tuple[str, ...]) -> dict[str, forms.Field]:
    """Form fields for settings `names` of `config`, built from their
    declared fields (a calibration's form: its settings have no row)."""
    found = {f.name: f for f in fields(config)}
    built = {}
    for name in names:
        f = found[name]
        field = declared_field(f)
        # The declared validators (a calibration's upper bounds) on the form too.
        form_field = field.formfield(validators=field.validators)
        if f.metadata.get("label"):
            form_field.label = f.metadata["label"][:1].upper() + f.metadata["label"][1:]
        if f.default is not MISSING:
            form_field.initial = f.default
        built[name] = form_field
    return built


def sections(cls: type[Config], order: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(title, field names) per admin section, the sections in `order`, the
    names in the config's order. A field in no section of `order` is refused,
    so a new section cannot be left out of the admin."""
    found: dict[str, list[str]] = {}
    for f in fields(cls):
        found.setdefault(f.metadata["section"], []).append(f.name)
    if stray := set(found) - set(order):
        raise ValueError(f"{cls.__name__}: sections {sorted(stray)} are not in {order}")
    return tuple((title, tuple(found[title])) for title in order if title in found)


def stored_before(cls: type[Config]) -> dict:
    """What configs stored before each later setting existed ran with."""
    return {f.name: copy.deepcopy(f.metadata["before"]) for f in fields(cls)
            if "before" in f.metadata}


def trl_arguments(config: Config) -> dict:
    """The settings TRL receives as they are, by TRL's argument names."""
    return {f.metadata["trl"]: getattr(config, f.name) for f in fields(config)
            if f.metadata.get("trl")}
