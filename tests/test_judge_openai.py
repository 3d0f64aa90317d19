"""The OpenAI-compatible vision judge against a real HTTP server on loopback
(tests/fake_vision_server.py) that judges the pictures by how much paint
they carry: answers are right for a visible reason, position bias cancels,
failures become None and a notice within bounded time, concurrency stays
bounded, and answers are cached per Judge row."""
from __future__ import annotations

import time

import pytest
from django.core.exceptions import ValidationError

from tests.fake_vision_server import GRID, FakeVisionServer, painted_png
from training.models import Judge, JudgeVerdict
from training.reward.judges import JudgeUnavailable, Picture, judge_backend
from training.reward.judges.base import CRITERIA
from training.reward.judges.openai_compat import (
    MAX_TOKENS,
    PROMPT_VERSION,
    OpenAICompatibleJudge,
    score_parse,
    verdict_parse,
)

RICH, POOR = Picture(data=painted_png(24)), Picture(data=painted_png(4))
PROMPT = "a peach-pink hibiscus in watercolour"


def judge_row(server: FakeVisionServer | None = None, **fields) -> Judge:
    values = {"name": "vision", "backend": "openai", "model": "fake-vlm",
              "base_url": server.url if server else "", "api_key_env": "",
              "max_concurrency": 4, "timeout_s": 2.0, "retries": 2, **fields}
    return Judge.objects.create(**values)


def judge_for(server: FakeVisionServer, **fields) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge.from_judge(judge_row(server, **fields))


@pytest.mark.django_db
class TestCompare:
    def test_the_better_painted_picture_wins_in_either_position(self):
        with FakeVisionServer() as server:
            answers = judge_for(server).compare([(RICH, POOR), (POOR, RICH)], [PROMPT] * 2)
        assert answers[0] > 0.5 > answers[1]
        assert answers == [1.0, 0.0]

    def test_every_pair_is_asked_in_both_orders(self):
        with FakeVisionServer() as server:
            judge_for(server).compare([(RICH, POOR)] * 3, [PROMPT] * 3)
        assert server.requests == 6
        first_images = [body["messages"][1]["content"][1]["image_url"]["url"]
                        for body in server.bodies]
        # Each picture was shown first as often as second.
        assert len(set(first_images)) == 2
        assert first_images.count(first_images[0]) == 3

    def test_a_judge_that_always_says_a_is_cancelled_to_a_tie(self):
        with FakeVisionServer(bias=True) as server:
            assert judge_for(server).compare([(RICH, POOR), (POOR, RICH)],
                                             [PROMPT] * 2) == [0.5, 0.5]

    def test_a_tie_is_one_half(self):
        with FakeVisionServer(tie=True) as server:
            assert judge_for(server).compare([(RICH, POOR)], [PROMPT]) == [0.5]

    def test_replies_cut_off_in_the_reason_still_parse(self):
        with FakeVisionServer(truncate=True) as server:
            judge = judge_for(server)
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert judge.notices == []

    def test_a_reply_without_a_verdict_is_none_with_a_notice(self):
        with FakeVisionServer(nonsense=True) as server:
            judge = judge_for(server)
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [None]
        assert any("2 of 2 replies did not parse" in n for n in judge.notices)
        assert any("both orders" in n for n in judge.notices)

    def test_the_request_is_a_chat_completion_with_data_url_images(self):
        with FakeVisionServer() as server:
            judge_for(server).compare([(RICH, POOR)], [PROMPT])
        body = server.bodies[0]
        assert body["model"] == "fake-vlm"
        assert body["temperature"] == 0 and body["max_tokens"] == MAX_TOKENS
        system, user = body["messages"]
        assert system["role"] == "system" and "p5.brush" in system["content"]
        kinds = [part["type"] for part in user["content"]]
        assert kinds.count("image_url") == 2
        urls = [p["image_url"]["url"] for p in user["content"] if p["type"] == "image_url"]
        assert all(url.startswith("data:image/png;base64,") for url in urls)
        assert PROMPT in user["content"][0]["text"]


@pytest.mark.django_db
class TestFailures:
    def test_server_errors_are_retried_until_answered(self):
        with FakeVisionServer(fail_first=2) as server:
            judge = judge_for(server, retries=2)
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert server.requests == 4  # two failed, both retried
        assert judge.notices == []

    def test_a_429_waits_as_long_as_retry_after_says(self):
        with FakeVisionServer(fail_first=2, fail_status=429, retry_after=1) as server:
            judge = judge_for(server, retries=1)
            started = time.monotonic()
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert time.monotonic() - started >= 0.9

    def test_a_permanent_failure_is_none_with_a_notice(self):
        with FakeVisionServer(fail_first=10**6) as server:
            judge = judge_for(server, retries=1)
            started = time.monotonic()
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [None]
            assert judge.rate([RICH], [PROMPT], "beauty") == [None]
        assert time.monotonic() - started < 5
        assert server.requests == 6  # 3 requests, each tried twice
        failed = [n for n in judge.notices if "requests failed" in n]
        assert failed == [f"{judge.key}: 3 of 3 requests failed (HTTP 500)"]

    def test_a_client_error_is_not_retried(self):
        with FakeVisionServer(fail_first=10**6, fail_status=400) as server:
            judge = judge_for(server, retries=3)
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [None]
        assert server.requests == 2
        assert any("2 of 2 requests failed (HTTP 400)" in n for n in judge.notices)

    def test_a_slow_server_times_out_in_bounded_time(self):
        delay_s = 3.0
        with FakeVisionServer(delay_s=delay_s) as server:
            judge = judge_for(server, timeout_s=0.3, retries=1)
            started = time.monotonic()
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [None]
            elapsed = time.monotonic() - started
        assert any("2 of 2 requests failed (timeout)" in n for n in judge.notices)
        # Not a speed target: waiting out the slow reply on both attempts would
        # take 2 x 3 s; a loaded CI machine once took 3.5 s with the timeouts.
        assert elapsed < 2 * delay_s

    def test_nothing_listening_is_none_with_a_notice(self):
        with FakeVisionServer() as server:
            url = server.url
        judge = OpenAICompatibleJudge(base_url=url, model="fake-vlm", retries=0)
        assert judge.rate([RICH], [PROMPT], "overall") == [None]
        assert judge.notices == [f"{judge.key}: 1 of 1 requests failed (connection error)"]


@pytest.mark.django_db
class TestConcurrency:
    def test_requests_in_flight_never_exceed_max_concurrency(self):
        with FakeVisionServer(delay_s=0.15) as server:
            judge_for(server, max_concurrency=3).compare([(RICH, POOR)] * 6, [PROMPT] * 6)
        assert server.requests == 12
        assert 1 < server.max_in_flight <= 3

    def test_one_at_a_time_when_max_concurrency_is_one(self):
        with FakeVisionServer(delay_s=0.02) as server:
            judge_for(server, max_concurrency=1).compare([(RICH, POOR)] * 3, [PROMPT] * 3)
        assert server.max_in_flight == 1


@pytest.mark.django_db
class TestCache:
    def test_a_second_identical_question_is_answered_from_the_database(self):
        with FakeVisionServer() as server:
            backend = judge_backend(judge_row(server))
            assert backend.compare([(RICH, POOR)], [PROMPT]) == [1.0]
            assert backend.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert server.requests == 2
        assert JudgeVerdict.objects.get(judge_key=backend.key, question="compare").value == 1.0

    def test_a_none_is_asked_again_next_time(self):
        with FakeVisionServer(fail_first=2) as server:
            backend = judge_backend(judge_row(server, retries=0))
            assert backend.compare([(RICH, POOR)], [PROMPT]) == [None]
            assert not JudgeVerdict.objects.exists()
            assert backend.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert server.requests == 4
        assert any("requests failed" in n for n in backend.notices)


@pytest.mark.django_db
class TestRate:
    def test_a_rating_is_the_score_divided_by_ten(self):
        cells = [0, 9, 18, 36]
        pictures = [Picture(data=painted_png(n)) for n in cells]
        with FakeVisionServer() as server:
            judge = judge_for(server)
            ratings = judge.rate(pictures, [PROMPT] * 4, "depth")
            preferences = judge.preference(pictures, [PROMPT] * 4)
        for rating, n in zip(ratings, cells, strict=True):
            assert rating == pytest.approx(n / GRID**2, abs=0.01)
        assert preferences == ratings
        questions = [body["messages"][1]["content"][-1]["text"] for body in server.bodies]
        assert sum(CRITERIA["depth"] in q for q in questions) == 4
        assert sum(CRITERIA["overall"] in q for q in questions) == 4

    def test_an_unknown_criterion_is_a_programming_error(self):
        judge = OpenAICompatibleJudge(base_url="http://127.0.0.1:9/v1", model="m")
        with pytest.raises(ValueError, match="unknown criterion"):
            judge.rate([RICH], [PROMPT], "vibes")


@pytest.mark.django_db
class TestConfiguration:
    def test_without_a_base_url_the_judge_is_unavailable_and_says_what_to_set(self, settings):
        settings.PAINTRL_JUDGE_BASE_URL = ""
        with pytest.raises(JudgeUnavailable, match="PAINTRL_JUDGE_BASE_URL"):
            judge_backend(judge_row())

    def test_without_a_model_the_judge_is_unavailable_and_says_what_to_set(self, settings):
        settings.PAINTRL_JUDGE_MODEL = ""
        with pytest.raises(JudgeUnavailable, match="PAINTRL_JUDGE_MODEL"):
            OpenAICompatibleJudge.from_judge(judge_row(base_url="http://127.0.0.1:9/v1",
                                                       model=""))

    def test_blank_fields_fall_back_to_the_settings(self, settings):
        with FakeVisionServer() as server:
            settings.PAINTRL_JUDGE_BASE_URL = server.url
            settings.PAINTRL_JUDGE_MODEL = "from-settings"
            judge = OpenAICompatibleJudge.from_judge(judge_row(model=""))
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert judge.key == f"openai:from-settings@{server.url}#{PROMPT_VERSION}"
        assert server.bodies[0]["model"] == "from-settings"

    def test_the_key_comes_from_the_variable_the_row_names(self, monkeypatch):
        monkeypatch.setenv("VISION_JUDGE_KEY", "sk-test-123")
        with FakeVisionServer(api_key="sk-test-123") as server:
            judge = judge_for(server, api_key_env="VISION_JUDGE_KEY")
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [1.0]
        assert server.authorizations == ["Bearer sk-test-123"] * 2
        assert "sk-test-123" not in judge.key and "VISION" not in judge.key

    def test_no_key_is_sent_when_the_variable_is_unset(self, monkeypatch):
        monkeypatch.delenv("VISION_JUDGE_KEY", raising=False)
        with FakeVisionServer(api_key="sk-test-123") as server:
            judge = judge_for(server, api_key_env="VISION_JUDGE_KEY")
            assert judge.compare([(RICH, POOR)], [PROMPT]) == [None]
        assert server.authorizations == [None, None]
        assert any("(HTTP 401)" in n and "no API key was sent" in n for n in judge.notices)


    @pytest.mark.parametrize("name", ["PAINTRL_SECRET_KEY", "DATABASE_URL", "HOME",
                                      "AWS_SECRET_ACCESS_KEY", "paintrl_judge_key"])
    def test_only_judge_key_variables_can_be_sent(self, name, monkeypatch):
        # Whoever edits a judge sets its URL too: any other variable would be
        # a way to send the worker's secrets to a server of their choosing.
        monkeypatch.setenv(name, "a secret")
        with FakeVisionServer() as server:
            with pytest.raises(JudgeUnavailable, match="not a judge key variable"):
                judge_for(server, api_key_env=name)
        assert server.bodies == []
        row = judge_row(name="probe", base_url="http://127.0.0.1:9/v1", api_key_env=name)
        with pytest.raises(ValidationError, match="not a judge key variable"):
            row.full_clean()
        for allowed in ("OPENAI_API_KEY", "VISION_JUDGE_KEY", "PAINTRL_JUDGE_API_KEY", ""):
            row.api_key_env = allowed
            row.full_clean()

class TestParsing:
    @pytest.mark.parametrize("reply, value", [
        ('{"verdict": "A", "reason": "richer"}', 1.0),
        ('```json\n{"verdict": "B", "reason": "x"}\n```', 0.0),
        ("{'verdict': 'tie', 'reason': 'both fine'}", 0.5),
        ('{"Verdict": "a", "reason": "the washes are lay', 1.0),
        ('{"verdict": "B"', 0.0),
        ("B", 0.0),
        ('{"reason": "no verdict given"}', None),
        ("", None),
        (None, None),
    ])
    def test_verdicts(self, reply, value):
        assert verdict_parse(reply) == value

    @pytest.mark.parametrize("reply, value", [
        ('{"score": 7, "reason": "good"}', 0.7),
        ("```\n{'score': '8.5', 'reason': 'lovely'}\n```", 0.85),
        ('{"SCORE": 12, "reas', 1.0),
        ('{"score": -3}', 0.0),
        ("6/10", 0.6),
        ("a fine painting", None),
    ])
    def test_scores(self, reply, value):
        assert score_parse(reply) == (pytest.approx(value) if value is not None else None)
