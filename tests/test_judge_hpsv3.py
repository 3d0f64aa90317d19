"""The HPSv3 judge against the real service script (scripts/hpsv3_service.py)
run as a subprocess on loopback with a test scorer in place of the 7B model
(tests/hpsv3_test_scorer.py: paint coverage on a 0-10 scale), and the
fallback to the local reward model where HPSv3 is not configured."""
from __future__ import annotations

import http.client
import json
import select
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from jobs.runner import job_run_here
from pool.reward import services
from tests.fake_vision_server import GRID, painted_png
from tests.reward_data import SMALL_CONFIG, toy_graded_renders
from training.models import Judge, JudgeVerdict
from training.reward.judges import JudgeUnavailable, Picture, judge_backend
from training.reward.judges.cache import CachedJudge
from training.reward.judges.hpsv3 import CENTRE, NOT_CONFIGURED, SCALE, HPSv3Judge
from training.reward.judges.local import LocalRewardModelJudge, _sigmoid

REPO = Path(__file__).resolve().parent.parent
SCORER = "tests.hpsv3_test_scorer:paint_score"
STARTUP_S = 15.0
RICH, POOR, BLANK = (Picture(data=painted_png(n)) for n in (24, 4, 0))
PROMPT = "a peach-pink hibiscus in watercolour"


def service_start() -> tuple[subprocess.Popen, str]:
    """The service on a free port (it announces the URL on its first line),
    once it answers /health."""
    process = subprocess.Popen(
        [sys.executable, "scripts/hpsv3_service.py", "--port", "0", "--scorer", SCORER],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ready, _, _ = select.select([process.stdout], [], [], STARTUP_S)
    line = process.stdout.readline() if ready else ""
    if "listening on " not in line:
        process.kill()
        pytest.fail(f"the HPSv3 service did not start (exit {process.poll()}): {line!r}")
    url = line.rsplit("listening on ", 1)[1].strip()
    deadline = time.monotonic() + STARTUP_S
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1):
                return process, url
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the HPSv3 service at {url} never answered /health")
            time.sleep(0.05)


def service_stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=10)
    process.stdout.close()


@pytest.fixture(scope="module")
def service_url():
    process, url = service_start()
    yield url
    service_stop(process)


def post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(f"{url}/score", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class TestService:
    def test_health_names_the_model(self, service_url):
        with urllib.request.urlopen(f"{service_url}/health", timeout=5) as response:
            assert json.loads(response.read()) == {"ok": True, "model": SCORER}

    @pytest.mark.parametrize("body, message", [
        (b"not json", "not JSON"),
        (b'{"images": ["aGVsbG8="], "prompts": []}', "1 images but 0 prompts"),
        (b'{"images": ["@@@"], "prompts": ["x"]}', "image 0 is not"),
        (b'{"images": "abc", "prompts": ["x"]}', "images must be a list"),
        (b'{"images": [], "prompts": []}', "send 1 to"),
    ])
    def test_a_bad_request_gets_400_with_the_reason(self, service_url, body, message):
        status, payload = post(service_url, body)
        assert status == 400
        assert message in payload["error"]


    def test_an_oversized_body_is_refused_before_it_is_read(self, service_url):
        host, port = service_url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        connection.putrequest("POST", "/score")
        connection.putheader("Content-Length", str(10**10))  # 10 GB, never sent
        connection.endheaders()
        response = connection.getresponse()
        assert response.status == 413
        connection.close()


class TestHPSv3Judge:
    def test_scores_rank_the_more_painted_picture_higher(self, service_url):
        scores = HPSv3Judge(service_url).scores([POOR, RICH, BLANK], [PROMPT] * 3)
        assert scores[1] > scores[0] > scores[2]
        assert scores == pytest.approx([10 * 4 / GRID**2, 10 * 24 / GRID**2, 0.0], abs=0.05)

    def test_scores_keep_their_order_across_batches(self, service_url):
        pictures = [Picture(data=painted_png(n)) for n in (0, 3, 6, 9, 12)]
        scores = HPSv3Judge(service_url, batch_size=2).scores(pictures, [PROMPT] * 5)
        assert scores == sorted(scores) and len(set(scores)) == 5

    def test_compare_is_the_logistic_of_the_score_difference(self, service_url):
        judge = HPSv3Judge(service_url)
        rich, poor = judge.scores([RICH, POOR], [PROMPT] * 2)
        answers = judge.compare([(RICH, POOR), (POOR, RICH)], [PROMPT] * 2)
        assert answers[0] > 0.5 > answers[1]
        assert answers[0] == pytest.approx(_sigmoid(rich - poor))

    def test_preference_centres_hpsv3s_scale_on_one_half(self, service_url):
        rich, poor = HPSv3Judge(service_url).preference([RICH, POOR], [PROMPT] * 2)
        assert rich > 0.5 > poor
        assert rich == pytest.approx(_sigmoid((10 * 24 / GRID**2 - CENTRE) / SCALE), abs=0.01)

    def test_rate_is_not_answered(self, service_url):
        judge = HPSv3Judge(service_url)
        assert judge.rate([RICH], [PROMPT], "beauty") == [None]
        assert judge.notices == [f"{judge.key} gives one score per picture and has no criteria, "
                                 "so it cannot rate beauty: choose a vision judge "
                                 "(OpenAI-compatible) as the judge"]

    def test_a_picture_the_service_refuses_is_none_with_a_notice(self, service_url):
        judge = HPSv3Judge(service_url)
        assert judge.preference([Picture(data=b"not a png")], [PROMPT]) == [None]
        assert "HTTP 400: image 0 is not" in judge.notices[0]

    def test_a_stopped_service_is_none_with_a_notice(self):
        process, url = service_start()
        service_stop(process)
        judge = HPSv3Judge(url, timeout_s=2)
        assert judge.compare([(RICH, POOR)], [PROMPT]) == [None]
        assert judge.preference([RICH], [PROMPT]) == [None]
        assert len(judge.notices) == 1
        assert judge.notices[0].startswith(f"{judge.key}: the HPSv3 service did not answer")


def hpsv3_row(**fields) -> Judge:
    return Judge.objects.create(name="hpsv3", backend="hpsv3", **fields)


@pytest.mark.django_db
class TestFactory:
    def test_a_configured_judge_answers_through_the_cache(self, service_url):
        backend = judge_backend(hpsv3_row(base_url=service_url))
        assert isinstance(backend, CachedJudge) and backend.key == f"hpsv3@{service_url}"
        first = backend.preference([RICH, POOR], [PROMPT] * 2)
        assert backend.preference([RICH, POOR], [PROMPT] * 2) == first
        assert backend.hits == 2
        assert JudgeVerdict.objects.filter(judge_key=backend.key).count() == 2

    def test_the_setting_is_used_when_the_row_has_no_url(self, settings, service_url):
        settings.PAINTRL_HPSV3_URL = service_url
        assert judge_backend(hpsv3_row()).key == f"hpsv3@{service_url}"

    def test_not_configured_falls_back_to_the_local_reward_model(self, media, settings):
        settings.PAINTRL_HPSV3_URL = ""
        toy_graded_renders(45)
        model = services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 8},
                                             queue=False)
        model = job_run_here(kind="reward_model", pk=model.pk)
        services.reward_model_activate(reward_model=model, score=False)

        backend = judge_backend(hpsv3_row())
        assert isinstance(backend, LocalRewardModelJudge)
        assert backend.notices == [NOT_CONFIGURED]
        assert all(value is not None for value in backend.preference([RICH], [PROMPT]))

    def test_not_configured_and_no_reward_model_is_unavailable(self, settings):
        settings.PAINTRL_HPSV3_URL = ""
        with pytest.raises(JudgeUnavailable, match="PAINTRL_HPSV3_URL.*no active reward model"):
            judge_backend(hpsv3_row())
