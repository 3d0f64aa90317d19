"""Judge and scorer backends come from PAINTRL_JUDGE_BACKENDS: a backend
registered there is chosen by its key with no other code touched (the admin's
select lists it, a Judge row saves with it, replays and runs ask it), and a
path that does not name a judge backend is ImproperlyConfigured, naming the
key and the path."""
from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.test import override_settings

from sketches.rendering import OK
from training.models import Judge
from training.reward.inputs import SignalInput
from training.reward.judges import JudgeBackend, JudgeUnavailable, Picture, judge_backend
from training.reward.judges.base import PREFERENCE_Q
from training.reward.judges.cache import CachedJudge
from training.reward.judges.hpsv3 import NOT_CONFIGURED, HPSv3Judge
from training.reward.judges.local import LocalRewardModelJudge
from training.reward.judges.openai_compat import OpenAICompatibleJudge
from training.reward.judges.registry import backend_choices, backend_class
from training.reward.rubric import signal_specs
from training.reward.scoring import signal_context_for, signals_compute


class ConstantJudge(JudgeBackend):
    """A preference scorer that likes every picture the same (the row's
    timeout, so the test sees the row reach it)."""

    label = "Constant (test)"
    questions = frozenset({PREFERENCE_Q})

    def __init__(self, value: float = 0.7):
        super().__init__()
        self.value = value
        self.key = f"constant:{value}"
        self.asked = 0

    @classmethod
    def from_judge(cls, judge):
        return cls(judge.timeout_s / 100)

    def preference(self, pictures, prompts):
        self.asked += len(pictures)
        return [self.value] * len(pictures)


class CachedConstantJudge(ConstantJudge):
    cacheable = True


class NotAJudge:
    pass


def with_backends(**extra: str):
    return override_settings(PAINTRL_JUDGE_BACKENDS={**settings.PAINTRL_JUDGE_BACKENDS, **extra})


PREFERENCE = signal_specs([{"name": "preference", "kind": "preference", "weight": 1}])


def painted(key: str) -> SignalInput:
    return SignalInput(key, "a heron", "code", OK, picture=Picture(data=key.encode()))


@pytest.mark.django_db
class TestANewBackend:
    def test_one_setting_lists_it_saves_it_and_scores_with_it(self):
        with with_backends(constant="tests.test_judge_registry.ConstantJudge"):
            field = Judge._meta.get_field("backend")
            assert ("constant", "Constant (test)") in list(field.formfield().choices)
            row = Judge(name="steady", backend="constant", timeout_s=70.0, api_key_env="")
            row.full_clean()
            row.save()
            assert str(row) == "steady (Constant (test))"
            backend = judge_backend(row)
            assert type(backend) is ConstantJudge and backend.value == 0.7
            context = signal_context_for(judge=row, scorer=row)
            rows = signals_compute(PREFERENCE, [painted("a"), painted("b")], context)
            assert [r[PREFERENCE[0].key] for r in rows] == [0.7, 0.7]

    def test_unlisted_it_is_refused_and_cannot_answer(self):
        row = Judge(name="steady", backend="constant", api_key_env="")
        with pytest.raises(ValidationError, match="not a valid choice"):
            row.full_clean()
        with pytest.raises(JudgeUnavailable, match="'constant' is not configured: "
                                                   "PAINTRL_JUDGE_BACKENDS has 'local'"):
            judge_backend(row)

    def test_a_cacheable_one_answers_through_the_database_cache(self):
        with with_backends(cached="tests.test_judge_registry.CachedConstantJudge"):
            row = Judge.objects.create(name="cached", backend="cached", api_key_env="")
            pictures = [Picture(data=b"one"), Picture(data=b"two")]
            first = judge_backend(row)
            assert isinstance(first, CachedJudge) and type(first.inner) is CachedConstantJudge
            assert first.preference(pictures, ["p", "p"]) == [0.6, 0.6]
            again = judge_backend(row)
            assert again.preference(pictures, ["p", "p"]) == [0.6, 0.6]
            assert (again.hits, again.misses, again.inner.asked) == (2, 0, 0)

    def test_an_hpsv3_judge_without_a_service_falls_back_through_the_setting(self, settings):
        settings.PAINTRL_HPSV3_URL = ""
        with with_backends(local="tests.test_judge_registry.ConstantJudge"):
            backend = judge_backend(Judge(name="hps", backend="hpsv3", timeout_s=30.0))
        assert type(backend) is ConstantJudge and backend.notices == [NOT_CONFIGURED]


class TestBadSettings:
    @pytest.mark.parametrize("path, why", [
        ("training.reward.judges.nowhere.Judge", "does not import"),
        ("training.reward.judges.local.NoSuchJudge", "does not import"),
        ("LocalRewardModelJudge", "does not import"),
        ("tests.test_judge_registry.NotAJudge", "is not a judge backend"),
        ("training.reward.judges.registry.backend_choices", "is not a judge backend"),
    ])
    def test_a_path_that_names_no_judge_backend_names_the_key_and_the_path(self, path, why):
        with with_backends(broken=path):
            message = f"PAINTRL_JUDGE_BACKENDS['broken'] = {path!r} {why}"
            with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
                backend_class("broken")
            # The admin's select (and `manage.py check`) meet it too, not just a replay.
            with pytest.raises(ImproperlyConfigured, match="'broken'"):
                backend_choices()
            with pytest.raises(ImproperlyConfigured, match="'broken'"):
                judge_backend(Judge(name="x", backend="broken"))


class TestInstalledBackends:
    def test_the_stored_keys_name_the_same_classes_as_before(self):
        assert backend_class("local") is LocalRewardModelJudge
        assert backend_class("openai") is OpenAICompatibleJudge
        assert backend_class("hpsv3") is HPSv3Judge
        assert backend_choices() == [("local", "Local reward model"),
                                     ("openai", "OpenAI-compatible vision endpoint"),
                                     ("hpsv3", "HPSv3 service")]

    def test_the_migration_stores_the_choices_function_not_todays_keys(self):
        kwargs = Judge._meta.get_field("backend").deconstruct()[3]
        assert kwargs["choices"] is backend_choices and kwargs["default"] == "local"
