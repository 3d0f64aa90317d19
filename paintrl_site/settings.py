"""paintrl settings: every value comes from the environment, with embedded
defaults that run on one machine (SQLite, a local Redis, the system Chromium)."""
from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

from files.s3 import s3_storage

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def env_float(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


DEBUG = env_bool("PAINTRL_DEBUG", True)
# Django's debug pages for a 404 (every URL pattern) and a 500 (the traceback)
# instead of the site's own: for working on paintrl, not for showing it.
PAINTRL_DEBUG_PAGES = env_bool("PAINTRL_DEBUG_PAGES", False)
# Development default: a key made per process is safe but logs everyone out on
# restart; production sets PAINTRL_SECRET_KEY (see docs/operations.md, "Production").
SECRET_KEY = os.environ.get("PAINTRL_SECRET_KEY") or secrets.token_urlsafe(50)
ALLOWED_HOSTS = os.environ.get("PAINTRL_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
CSRF_TRUSTED_ORIGINS = [
    origin for origin in os.environ.get("PAINTRL_CSRF_TRUSTED_ORIGINS", "").split(",") if origin
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "jobs",
    "sketches",
    "rating",
    "pool",
    "training",
    # The HTTP API (/api/v1/) and its tokens; it reads every app above.
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The site's own 404 and 500 pages with DEBUG on too (PAINTRL_DEBUG_PAGES).
    "paintrl_site.middleware.SiteErrorPagesMiddleware",
    # A lost database is a 503 page (before the login check, which loads the user).
    "paintrl_site.middleware.DatabaseUnavailableMiddleware",
    # Every page needs a login except those marked @login_not_required.
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "paintrl_site.urls"
WSGI_APPLICATION = "paintrl_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "sketches.access.access_context",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'paintrl.sqlite3'}"),
        conn_max_age=env_int("PAINTRL_DB_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # A file, not memory, so a Celery worker started by a test sees the test data.
    # One file per test run, so two runs on one machine never share it.
    DATABASES["default"]["TEST"] = {
        "NAME": str(BASE_DIR / f"paintrl-test-{os.getpid()}.sqlite3")}
    # Web and workers write at once: a transaction takes SQLite's write lock
    # when it begins, waiting up to 20 s for it. Deferred (SQLite's default),
    # a transaction that read first fails at its first write with "database is
    # locked" (eight curators grading at once got 500s that way).
    # Write-ahead logging: readers no longer hold up a writer's commit nor wait
    # for it, and a commit appends to the log without a sync of its own (the
    # log is synced at checkpoints): a grade then waits on other writers only
    # (docs/benchmarks.md, "Grade posts under load").
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20,
         "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"})
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("PAINTRL_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # p5, p5.brush and htmx from package-lock.json, the same files the renderer uses.
    ("vendor/p5", BASE_DIR / "node_modules" / "p5" / "lib"),
    ("vendor/p5.brush", BASE_DIR / "node_modules" / "p5.brush" / "dist"),
    ("vendor/htmx", BASE_DIR / "node_modules" / "htmx.org" / "dist"),
    # The sketch editor's CodeMirror 5: lib/ and mode/javascript/, served as npm ships them.
    ("vendor/codemirror", BASE_DIR / "node_modules" / "codemirror"),
]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("PAINTRL_MEDIA_ROOT", BASE_DIR / "media"))

# --- Files (files/stored.py reads them) -----------------------------------
# Renders' PNGs, uploads and reward-model weights live in the default
# storage: MEDIA_ROOT on this machine, or, with PAINTRL_S3_BUCKET, an
# S3-compatible bucket (AWS, MinIO, Ceph...) through django-storages, so web,
# render and train workers on several hosts see the same files. Credentials
# are boto3's own (files/s3.py), never written here.
PAINTRL_S3_BUCKET = os.environ.get("PAINTRL_S3_BUCKET", "")
if PAINTRL_S3_BUCKET:
    _default_storage = s3_storage(bucket=PAINTRL_S3_BUCKET,
                                  endpoint_url=os.environ.get("PAINTRL_S3_ENDPOINT_URL"),
                                  region=os.environ.get("PAINTRL_S3_REGION"),
                                  prefix=os.environ.get("PAINTRL_S3_PREFIX", ""))
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# --- Celery -------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    # Jobs (an import, a reward model, a replay, a run, a prompt optimisation,
    # a calibration, a policy build) go by jobs.tasks.job_task to the queue their kind names
    # (each app's kinds.py), not by these routes. Long work (a GRPO run:
    # hours; the policy build: ~15 min) has the train worker to itself; short
    # CPU work (reward-model training and scoring: seconds; a replay, a
    # judge's agreement) has the short worker, so neither waits behind the
    # other. Each worker runs one task at a time.
    # Storing the pool page's perceptual fingerprints is a few ms a render:
    # behind a training job on the train queue it would wait for hours.
    "pool.tasks.render_fingerprints_store_task": {"queue": "default"},
    "sketches.tasks.*": {"queue": "render"},
    "training.tasks.*": {"queue": "short"},
    "pool.tasks.*": {"queue": "short"},
}
# Long tasks: acknowledge after the work, so a worker killed mid-task leaves
# the message to be redelivered; take one message at a time.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis redelivers an unacknowledged message after this long; it must exceed
# the longest task (a training run), or the run would be delivered twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("PAINTRL_VISIBILITY_TIMEOUT_S", 12 * 3600),
    # Each queue is one Redis list per step; a worker takes from the lowest
    # step first (sketches.services.ASKED renders before BULK ones).
    "priority_steps": [0, 3, 6, 9],
}
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_ALWAYS_EAGER = env_bool("PAINTRL_CELERY_EAGER", False)

# --- Renderer (sketches/conf.py reads these) ----------------------------
PAINTRL_CHROMIUM_PATH = os.environ.get("PAINTRL_CHROMIUM_PATH", "/usr/bin/chromium")
# Chromium's own sandbox (sketches/renderer/os_sandbox.py): the user a root
# worker runs the browser as, and whether a machine without the sandbox may
# render anyway (off: the renderer refuses to start there).
PAINTRL_CHROMIUM_USER = os.environ.get("PAINTRL_CHROMIUM_USER", "paintrl-chromium")
PAINTRL_CHROMIUM_ALLOW_UNSANDBOXED = env_bool("PAINTRL_CHROMIUM_ALLOW_UNSANDBOXED", False)
PAINTRL_RENDER_BROWSERS = env_int("PAINTRL_RENDER_BROWSERS", 2)
PAINTRL_RENDER_DEADLINE_S = env_float("PAINTRL_RENDER_DEADLINE_S", 30.0)
PAINTRL_RENDER_MAX_FRAMES = env_int("PAINTRL_RENDER_MAX_FRAMES", 60)
PAINTRL_RENDER_MAX_CANVAS_SIDE = env_int("PAINTRL_RENDER_MAX_CANVAS_SIDE", 1200)
PAINTRL_BLANK_FLOOR = env_float("PAINTRL_BLANK_FLOOR", 0.005)
# Words painted in a render the gate passed (sketches/painted_words.py):
# "reject" (a painted_words violation) or "flag" (the render passes, and its
# page, the API and a run's gallery show the words).
PAINTRL_PAINTED_WORDS = os.environ.get("PAINTRL_PAINTED_WORDS", "reject")
# The render fleet (sketches/fleet.py): a batch sent to the render workers
# gives up on the renders left, as `unavailable`, once this long has passed
# with no render worker answering (no render of the batch starting or
# finishing, no worker holding one answering a ping). sketches/conf.py says why.
PAINTRL_FLEET_WAIT_S = env_float("PAINTRL_FLEET_WAIT_S", 120.0)

# --- The reward service (training/external/conf.py says why each) ----------
PAINTRL_REWARD_BATCH_MAX = env_int("PAINTRL_REWARD_BATCH_MAX", 256)
PAINTRL_REWARD_CONCURRENCY = env_int("PAINTRL_REWARD_CONCURRENCY", 4)
PAINTRL_REWARD_RETRY_AFTER_S = env_int("PAINTRL_REWARD_RETRY_AFTER_S", 5)
PAINTRL_REWARD_BACKLOG_MAX = env_int("PAINTRL_REWARD_BACKLOG_MAX", 1024)
PAINTRL_SCORE_SIZE = env_int("PAINTRL_SCORE_SIZE", 256)
# Dotted path to `in_use(png_name) -> bool`: a re-render (render_pending
# --stale) deletes the render's old PNG only when this says nothing else still
# reads the file. The pool app's frozen snapshots keep the path they were
# frozen with. Empty: old PNGs are never deleted.
PAINTRL_PNG_IN_USE = os.environ.get(
    "PAINTRL_PNG_IN_USE", "pool.selectors.png_in_snapshot") or None
# The render page's extra panels, each a dotted path to a function
# (request, render) -> sketches.render_panels.RenderPanel | None: the grading
# facts from rating and the pool's from pool, the apps that know them
# (sketches imports neither).
PAINTRL_RENDER_PANELS = ("rating.render_panel.grading_panel", "pool.render_panel.pool_panel")
# (request, snapshot) -> pool.snapshot_panels.SnapshotPanel | None: the
# calibrations from training, which owns them (pool imports none of it).
PAINTRL_SNAPSHOT_PANELS = ("training.calibration.panel.calibration_panel",)
# Canvas side of the procedural painter's sketches. Watercolour fills cost time
# in proportion to their area, so this sets how fast the demo corpus renders.
PAINTRL_PAINTER_SIZE = env_int("PAINTRL_PAINTER_SIZE", 400)
# Imported manifests may carry grades; the rating app stores them (sketches
# cannot import rating, so it calls this dotted path).
PAINTRL_IMPORT_GRADES_HANDLER = os.environ.get("PAINTRL_IMPORT_GRADES_HANDLER",
                                               "rating.services.grades_import")
# Import limits (sketches/importing/conf.py reads these; the reasons are there).
PAINTRL_IMPORT_MAX_FILE_BYTES = env_int("PAINTRL_IMPORT_MAX_FILE_BYTES", 1_000_000)
PAINTRL_IMPORT_MAX_PNG_BYTES = env_int("PAINTRL_IMPORT_MAX_PNG_BYTES", 20_000_000)
PAINTRL_IMPORT_MAX_IMAGE_PIXELS = env_int("PAINTRL_IMPORT_MAX_IMAGE_PIXELS", 4096 * 4096)
PAINTRL_IMPORT_MAX_TOTAL_BYTES = env_int("PAINTRL_IMPORT_MAX_TOTAL_BYTES", 2_000_000_000)
PAINTRL_IMPORT_MAX_RATIO = env_int("PAINTRL_IMPORT_MAX_RATIO", 100)
# The upload page's limit, enforced while the body streams in.
PAINTRL_IMPORT_MAX_UPLOAD_BYTES = env_int("PAINTRL_IMPORT_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
# The render deadline of an imported sketch without its PNG (longer than a
# training render's; at most 240 s). sketches/importing/conf.py says why.
PAINTRL_IMPORT_DEADLINE_S = env_float("PAINTRL_IMPORT_DEADLINE_S", 120.0)

# --- Grading (rating/conf.py reads these) -------------------------------
# The group whose members grade and edit (staff may too).
PAINTRL_CURATOR_GROUP = os.environ.get("PAINTRL_CURATOR_GROUP", "curator")
# How many curators should grade each render: 1 for labelling, more for
# agreement studies.
PAINTRL_GRADE_OVERLAP = env_int("PAINTRL_GRADE_OVERLAP", 1)
# A render held for a curator (on screen or in the browser's queue of upcoming
# renders) is handed to no one else until the claim lapses; the grading page
# renews its claims as it works (and every TTL/3 while idle), so only an
# abandoned page lets them lapse.
PAINTRL_CLAIM_TTL_S = env_int("PAINTRL_CLAIM_TTL_S", 600)
# Renders the grading page holds ahead (the one shown included), preloaded so
# the next one appears the moment a grade is given.
PAINTRL_GRADE_PREFETCH = env_int("PAINTRL_GRADE_PREFETCH", 5)
# Dotted path to `order(renders) -> ordered renders | None` behind the "most
# informative first" queue order; None (or a function answering None, e.g. no
# reward model yet) hides the option. The pool app provides one.
# Empty disables it. The default orders by the active reward model's scores.
PAINTRL_INFORMATIVE_ORDER = os.environ.get(
    "PAINTRL_INFORMATIVE_ORDER", "pool.reward.selectors.informative_order") or None
# Comparing pairs: how many curators may be handed each pair of renders (1 for
# labelling, 2 or more to measure agreement on comparisons).
PAINTRL_COMPARE_OVERLAP = env_int("PAINTRL_COMPARE_OVERLAP", 1)
# Dotted path to `label() -> str | None`: the Render.taste_model label whose
# scores pick the pairs the reward model is least sure of; None (no active
# model) leaves the pairs in no particular order. The pool app provides one.
PAINTRL_PAIR_SCORE_LABEL = os.environ.get(
    "PAINTRL_PAIR_SCORE_LABEL", "pool.reward.selectors.score_label_active") or None

# --- Reward model (pool/reward/conf.py reads these) ---------------------
# A local folder with a transformers vision model (CLIP, SigLIP...): when set,
# a reward model may be trained as a head on its embeddings (config model
# "backbone"). Nothing is downloaded; empty means the small CNN only.
PAINTRL_REWARD_BACKBONE = os.environ.get("PAINTRL_REWARD_BACKBONE", "")
# Decoded, downscaled renders kept between training runs and scoring (unset:
# MEDIA_ROOT/reward_cache; empty: memory only).
PAINTRL_REWARD_CACHE_DIR = os.environ.get("PAINTRL_REWARD_CACHE_DIR")
# Torch threads for reward-model training and scoring; see pool/reward/train.py
# (two threads ran 30x slower than one on the busy 2-core machine).
PAINTRL_REWARD_THREADS = env_int("PAINTRL_REWARD_THREADS", 1)
# The gold judge (manage.py bootstrap_gold writes it; pool/reward/gold.py): a
# reward model trained on painter tiers that runs may score their probe with.
PAINTRL_GOLD_DIR = os.environ.get("PAINTRL_GOLD_DIR", str(BASE_DIR / "policies" / "gold"))

# --- Pool (pool/conf.py reads these; pool/phash.py has the measurements) --
# Near-duplicates: perceptual hashes at most this many bits apart (of 64) ...
PAINTRL_POOL_DUPLICATE_DISTANCE = env_int("PAINTRL_POOL_DUPLICATE_DISTANCE", 8)
# ... and colour layouts (4x4 grid, RMS of RGB distances) at most this far apart.
PAINTRL_POOL_DUPLICATE_COLOUR_DISTANCE = env_float("PAINTRL_POOL_DUPLICATE_COLOUR_DISTANCE", 10.0)

# --- Training -----------------------------------------------------------
# The built-in policy (manage.py bootstrap_policy writes it; runs with no
# base model load it).
PAINTRL_POLICY_DIR = os.environ.get("PAINTRL_POLICY_DIR", str(BASE_DIR / "policies" / "builtin"))
# How much nicer than the train worker a queued policy build runs (0: the
# same): on a machine that also renders, renders come first.
PAINTRL_POLICY_BUILD_NICENESS = env_int("PAINTRL_POLICY_BUILD_NICENESS", 10)
# Run folders (checkpoints) live under MEDIA_ROOT/runs/<id>/.
# A running run whose worker has been silent this long counts as stalled: the
# admin may resume it from its last checkpoint.
PAINTRL_RUN_STALE_S = env_int("PAINTRL_RUN_STALE_S", 1800)
# Every other job's lease (jobs.registry.job_stale_s says what it bounds).
PAINTRL_JOB_STALE_S = env_int("PAINTRL_JOB_STALE_S", 1800)
# Checkpoints kept per run (older ones are deleted as new ones are saved).
PAINTRL_RUN_KEEP_CHECKPOINTS = env_int("PAINTRL_RUN_KEEP_CHECKPOINTS", 2)
# Torch threads on the train worker (0: torch's default). On the busy 2-core
# machine, sampling with 2 threads took 9.5 s against 0.14 s with 1.
PAINTRL_RUN_THREADS = env_int("PAINTRL_RUN_THREADS", 1)
# Where a new run's rollouts render: "process" or "fleet" (training/runs/conf.py).
PAINTRL_RUN_RENDERS = os.environ.get("PAINTRL_RUN_RENDERS", "process")

# --- Judges (training/reward/judges/ reads these) ------------------------------
# Judge and scorer backends: a Judge row's `backend` is a key here, and the
# class is loaded from its dotted path (training/reward/judges/registry.py). To add
# one, write a training.reward.judges.base.JudgeBackend subclass (its docstring says
# what to implement) and add "key": "dotted.path.Class" here; the admin's
# select lists it, no migration needed. Keys are stored on the rows (at most
# 40 characters: `manage.py check` says so), so a key stays while rows use it.
PAINTRL_JUDGE_BACKENDS = {
    "local": "training.reward.judges.local.LocalRewardModelJudge",
    "openai": "training.reward.judges.openai_compat.OpenAICompatibleJudge",
    "hpsv3": "training.reward.judges.hpsv3.HPSv3Judge",
}
# An OpenAI-compatible vision chat endpoint (vLLM, a hosted API) for judges
# with backend "openai": base URL (up to /v1), model name, and the key from
# the environment variable the Judge row names (PAINTRL_JUDGE_API_KEY by default).
PAINTRL_JUDGE_BASE_URL = os.environ.get("PAINTRL_JUDGE_BASE_URL", "")
PAINTRL_JUDGE_MODEL = os.environ.get("PAINTRL_JUDGE_MODEL", "")
# The HPSv3 preference service (scripts/hpsv3_service.py, in its own
# environment); empty: HPSv3 judges fall back to the local reward model.
PAINTRL_HPSV3_URL = os.environ.get("PAINTRL_HPSV3_URL", "")

# One handler, on the root: Django's own "django" console handler (on with
# DEBUG) printed every django.* record a second time. A refused request (403,
# 404) is logged as one line with its reason, not a traceback: it is the app
# answering, not failing (paintrl_site.log_filters).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusal_one_line": {"()": "paintrl_site.log_filters.RefusalOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.request": {"handlers": [], "filters": ["refusal_one_line"], "propagate": True},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("PAINTRL_LOG_LEVEL", "INFO")},
}

# --- Profile -----------------------------------------------------------------
# "dev" (the default) is everything above: one machine, DEBUG on. "production"
# (paintrl_site/production.py; docs/operations.md, "Production") needs PAINTRL_SECRET_KEY and
# PAINTRL_ALLOWED_HOSTS, turns DEBUG off and serves over HTTPS only.
PAINTRL_PROFILE = os.environ.get("PAINTRL_PROFILE", "dev").strip().lower() or "dev"
if PAINTRL_PROFILE == "production":
    from .production import production_settings

    globals().update(production_settings(os.environ, MIDDLEWARE))
elif PAINTRL_PROFILE != "dev":
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"PAINTRL_PROFILE must be 'dev' or 'production', "
                               f"got {PAINTRL_PROFILE!r}")
