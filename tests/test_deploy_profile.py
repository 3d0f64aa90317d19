"""The production profile (PAINTRL_PROFILE=production, paintrl_site/production.py):
`manage.py check --deploy` passes with no warning under it, it refuses to
start without its secrets, it serves HTTPS only (and trusts a proxy's
X-Forwarded-Proto only when told to), and the default profile stays as it was.
Each check runs in a subprocess with its own environment, as a deployment
would; secrets come only from that environment, never from code or tables."""
from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.load_harness import wait_until_up
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
HOSTS = "paintrl.example.org"
# The settings secrets would be read into, and the code that reads them.
SOURCES = [ROOT / d for d in ("paintrl_site", "sketches", "rating", "pool", "training",
                              "scripts")]


def strong_key() -> str:
    return secrets.token_urlsafe(50)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    """manage.py with only what a deployment sets: none of this process's
    PAINTRL_/DJANGO_ variables leak in."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("PAINTRL_", "DJANGO_", "DATABASE_URL"))}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**base, **env})


def production(**env: str) -> dict:
    return {"PAINTRL_PROFILE": "production", "PAINTRL_SECRET_KEY": strong_key(),
            "PAINTRL_ALLOWED_HOSTS": HOSTS, **env}


class TestCheckDeploy:
    def test_the_production_profile_passes_with_no_warning(self):
        result = manage("check", "--deploy", "--fail-level", "WARNING", **production())
        assert result.returncode == 0, result.stderr + result.stdout
        assert "no issues" in result.stdout

    def test_behind_a_tls_proxy_too(self):
        result = manage("check", "--deploy", "--fail-level", "WARNING",
                        **production(PAINTRL_BEHIND_TLS_PROXY="1"))
        assert result.returncode == 0, result.stderr + result.stdout

    def test_the_default_profile_is_unchanged_and_the_check_sees_it(self):
        """The check is not blind: the dev profile (DEBUG on, cookies over HTTP)
        fails it with the warnings it has always had."""
        result = manage("check", "--deploy", "--fail-level", "WARNING")
        assert result.returncode != 0
        for code in ("security.W004", "security.W008", "security.W012", "security.W016",
                     "security.W018"):
            assert code in result.stderr + result.stdout, code


def settings_under(env: dict, *names: str) -> list[str]:
    """Values of the named settings as the profile makes them, one per line."""
    code = ("import django; django.setup(); from django.conf import settings as s; "
            f"print(*[repr(getattr(s, n, None)) for n in {list(names)!r}], sep='\\n')")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PAINTRL_", "DJANGO_"))}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=60,
                            env={**base, "DJANGO_SETTINGS_MODULE": "paintrl_site.settings",
                                 **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


class TestProfileSettings:
    def test_production_turns_debug_off_and_takes_key_and_hosts_from_the_environment(self):
        env = production()
        debug, key, hosts, ssl, proxy = settings_under(
            env, "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT",
            "SECURE_PROXY_SSL_HEADER")
        assert (debug, key, hosts, ssl, proxy) == (
            "False", repr(env["PAINTRL_SECRET_KEY"]), repr([HOSTS]), "True", "None")

    def test_the_proxy_switch_trusts_x_forwarded_proto(self):
        (proxy,) = settings_under(production(PAINTRL_BEHIND_TLS_PROXY="1"),
                                  "SECURE_PROXY_SSL_HEADER")
        assert proxy == repr(("HTTP_X_FORWARDED_PROTO", "https"))

    def test_the_default_profile_keeps_debug_and_a_per_process_key(self):
        debug, hosts, ssl = settings_under({}, "DEBUG", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT")
        assert (debug, hosts, ssl) == ("True", repr(["localhost", "127.0.0.1", "[::1]"]),
                                       "False")
        assert settings_under({}, "SECRET_KEY") != settings_under({}, "SECRET_KEY")


# Requests to /login/ under a profile, answered as JSON lines: status, redirect,
# HSTS, frame options, and whether the CSRF cookie is Secure.
SERVE = """
import json, django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client(raise_request_exception=False)
for extra in ({}, {"HTTP_X_FORWARDED_PROTO": "https"}, {"secure": True},
              {"secure": True, "HTTP_HOST": "evil.example.com"}):
    r = client.get("/login/", **{"HTTP_HOST": "paintrl.example.org", **extra})
    cookie = r.cookies.get("csrftoken")
    print(json.dumps([r.status_code, r.get("Location"), r.get("Strict-Transport-Security"),
                      r.get("X-Frame-Options"), bool(cookie and cookie["secure"])]))
"""


def served(env: dict) -> list[list]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PAINTRL_", "DJANGO_"))}
    result = subprocess.run([sys.executable, "-c", SERVE], cwd=ROOT, capture_output=True,
                            text=True, timeout=60,
                            env={**base, "DJANGO_SETTINGS_MODULE": "paintrl_site.settings",
                                 **env})
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("[")]


HTTPS_PAGE = [200, None, "max-age=31536000; includeSubDomains; preload", "DENY", True]
TO_HTTPS = [301, "https://paintrl.example.org/login/", None, None, False]


class TestServing:
    def test_http_is_redirected_and_https_pages_carry_hsts_and_secure_cookies(self):
        plain, forwarded, https, other_host = served(production())
        assert plain == TO_HTTPS
        # Without the proxy switch a client cannot claim HTTPS with a header.
        assert forwarded == TO_HTTPS
        assert https == HTTPS_PAGE
        assert other_host[0] == 400  # a host not in PAINTRL_ALLOWED_HOSTS

    def test_behind_a_tls_proxy_its_header_counts_as_https(self):
        plain, forwarded, https, _ = served(production(PAINTRL_BEHIND_TLS_PROXY="1"))
        assert plain == TO_HTTPS
        assert forwarded == https == HTTPS_PAGE


class TestProductionServer:
    """The Procfile's web process under the production profile: gunicorn,
    serving pages and the static files `collectstatic` gathered (no proxy
    rule needed), behind a TLS proxy as a deployment runs it."""

    def test_gunicorn_serves_the_pages_and_the_static_files(self, tmp_path):
        env = production(PAINTRL_BEHIND_TLS_PROXY="1", PAINTRL_STATIC_ROOT=str(tmp_path / "static"),
                         DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
                         PAINTRL_PORT=str(free_port()), PAINTRL_WEB_WORKERS="1")
        collected = manage("collectstatic", "--noinput", **env)
        assert collected.returncode == 0, collected.stderr
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("PAINTRL_", "DJANGO_", "DATABASE_URL"))}
        # The virtualenv's commands first on the PATH, as `make` and honcho run it.
        path = f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}"
        log = open(tmp_path / "web.log", "wb")
        web = subprocess.Popen([str(ROOT / "scripts" / "web.sh")], cwd=ROOT,
                               env={**base, **env, "PATH": path}, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until_up(int(env["PAINTRL_PORT"]), {"web": web}, str(tmp_path))
            url = f"http://127.0.0.1:{env['PAINTRL_PORT']}"
            headers = {"Host": HOSTS, "X-Forwarded-Proto": "https"}
            page = request(f"{url}/login/", headers)
            assert page.status == 200 and page.headers["Server"].startswith("gunicorn")
            assert b'name="password"' in page.read()
            brush = request(f"{url}/static/vendor/p5.brush/p5.brush.js", headers)
            assert brush.status == 200 and brush.read() == (
                ROOT / "node_modules" / "p5.brush" / "dist" / "p5.brush.js").read_bytes()
            # The security middleware runs before the static files: HSTS on them
            # too, and plain HTTP is sent to HTTPS.
            assert "max-age=" in brush.headers["Strict-Transport-Security"]
            plain = request(f"{url}/static/vendor/p5.brush/p5.brush.js", {"Host": HOSTS})
            assert plain.status == 301
            assert plain.headers["Location"].startswith(f"https://{HOSTS}/static/")
        finally:
            os.killpg(web.pid, signal.SIGTERM)
            web.wait(timeout=30)
            log.close()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def request(url: str, headers: dict):
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        return opener.open(urllib.request.Request(url, headers=headers), timeout=10)
    except urllib.error.HTTPError as answer:  # a 3xx or 4xx: its status and headers
        return answer


class TestRefusals:
    @pytest.mark.parametrize("env, message", [
        ({"PAINTRL_SECRET_KEY": ""}, "needs PAINTRL_SECRET_KEY"),
        ({"PAINTRL_SECRET_KEY": "short"}, "too weak"),
        ({"PAINTRL_SECRET_KEY": "django-insecure-" + "x1y2z3" * 10}, "too weak"),
        ({"PAINTRL_SECRET_KEY": "a" * 60}, "too weak"),
        ({"PAINTRL_ALLOWED_HOSTS": ""}, "needs PAINTRL_ALLOWED_HOSTS"),
        ({"PAINTRL_ALLOWED_HOSTS": "*"}, "may not be '*'"),
        ({"PAINTRL_DEBUG": "true"}, "PAINTRL_DEBUG is on"),
    ], ids=["no key", "short key", "startproject key", "one-letter key", "no hosts",
            "any host", "debug on"])
    def test_production_will_not_start_without_its_secrets(self, env, message):
        result = manage("check", **production(**env))
        assert result.returncode != 0
        assert "ImproperlyConfigured" in result.stderr and message in result.stderr, \
            result.stderr[-2000:]

    def test_an_unknown_profile_is_refused(self):
        result = manage("check", PAINTRL_PROFILE="prod")
        assert result.returncode != 0 and "must be 'dev' or 'production'" in result.stderr


class TestSecretsLiveInTheEnvironment:
    # A literal assigned to a name that sounds secret: `api_key = "sk-..."`.
    ASSIGNED = re.compile(r"""(?ix)\b\w*(secret|api_?key|password|token)\w*["']?\s*[:=]\s*
                              ["'][^"'\s]{12,}["']""")
    # Token shapes of common providers.
    SHAPES = re.compile(r"sk-[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{30,}|"
                        r"hf_[A-Za-z0-9]{30,}|xox[bp]-[A-Za-z0-9-]{20,}")

    def test_no_key_or_password_is_written_in_the_code(self):
        found = []
        for folder in SOURCES:
            for path in folder.rglob("*"):
                if path.suffix not in (".py", ".js", ".html", ".json", ".toml", ".cfg"):
                    continue
                text = path.read_text(errors="replace")
                for pattern in (self.ASSIGNED, self.SHAPES):
                    found += [f"{path.relative_to(ROOT)}: {m.group(0)}"
                              for m in pattern.finditer(text)]
        assert found == []

    def test_settings_read_every_secret_from_the_environment(self):
        text = (ROOT / "paintrl_site" / "settings.py").read_text()
        assert 'SECRET_KEY = os.environ.get("PAINTRL_SECRET_KEY")' in text
        # The database password, if any, is inside DATABASE_URL.
        assert 'os.environ.get("DATABASE_URL"' in text

    @pytest.mark.django_db
    def test_no_table_stores_a_key_and_judges_name_a_variable(self):
        """No model has a column for a key (the user table keeps password hashes);
        every judge, the installed presets included, names an environment variable."""
        from django.apps import apps

        from tests.lab_data import presets_ensure
        from training.models import Judge

        presets_ensure()
        secretish = re.compile(r"secret|api_?key(?!_env)|(^|_)token$|password|credential")
        columns = [f"{m._meta.label}.{f.name}" for m in apps.get_models()
                   for f in m._meta.concrete_fields if secretish.search(f.name)]
        assert columns == ["auth.User.password"]
        judges = list(Judge.objects.all())
        assert judges and all(re.fullmatch(r"([A-Z_][A-Z0-9_]*)?", j.api_key_env)
                              for j in judges), [j.api_key_env for j in judges]
