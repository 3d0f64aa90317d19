"""Files in an S3-compatible bucket: a real S3 server (moto's server mode)
on loopback, django-storages as the default storage, and the real parts on
top of it (a render worker process, the pool, the reward signals, imports).
Nothing of the app may write its files to MEDIA_ROOT meanwhile."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import uuid
import zipfile

import boto3
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from files.s3 import s3_storage
from jobs.models import JobStatus
from jobs.runner import job_run_here
from pool.export import snapshot_export_zip
from pool.services import snapshot_freeze
from sketches import services
from sketches.importing.jobs import import_job_create
from sketches.models import Render, Sketch
from tests.pool_data import grades_give, pool_renders_create
from tests.ports import free_port
from tests.sketch_files import read_sketch
from tests.workers import run_worker, wait_for

REGION = "us-east-1"
# moto accepts any key; boto3 needs one to sign requests.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "paintrl-test", "AWS_SECRET_ACCESS_KEY": "paintrl-test",
               "AWS_DEFAULT_REGION": REGION}
PNG_MAGIC = b"\x89PNG"


@pytest.fixture(scope="module")
def s3_endpoint():
    """A real S3-compatible server on loopback for this module's tests."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


class Bucket:
    def __init__(self, endpoint: str, name: str) -> None:
        self.endpoint = endpoint
        self.name = name
        self.client = boto3.client("s3", endpoint_url=endpoint, region_name=REGION,
                                   aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                                   aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"])
        self.client.create_bucket(Bucket=name)

    def keys(self) -> set[str]:
        listing = self.client.list_objects_v2(Bucket=self.name)
        return {item["Key"] for item in listing.get("Contents", [])}

    def read(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.name, Key=key)["Body"].read()

    @property
    def worker_env(self) -> dict[str, str]:
        """What a worker process on another host would be given."""
        return {**CREDENTIALS, "PAINTRL_S3_BUCKET": self.name,
                "PAINTRL_S3_ENDPOINT_URL": self.endpoint, "PAINTRL_S3_REGION": REGION}


@pytest.fixture
def bucket(media, s3_endpoint, settings, monkeypatch, tmp_path):
    """A fresh bucket as the default storage, and an empty MEDIA_ROOT that
    must stay empty."""
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    bucket = Bucket(s3_endpoint, f"paintrl-{uuid.uuid4().hex[:12]}")
    settings.STORAGES = {**settings.STORAGES, "default": s3_storage(
        bucket=bucket.name, endpoint_url=s3_endpoint, region=REGION)}
    yield bucket
    written = list((tmp_path / "media").rglob("*")) if (tmp_path / "media").exists() else []
    assert not written, f"files written to MEDIA_ROOT instead of the bucket: {written}"


@pytest.fixture
def s3_render_worker(media, transactional_db, bucket, settings):
    """A render worker process that knows the bucket only from its settings."""
    yield from run_worker("render", media, settings,
                          env={**bucket.worker_env, "PAINTRL_RENDER_BROWSERS": "1"})


@pytest.mark.browser
@pytest.mark.worker
def test_a_render_is_stored_in_the_bucket_and_served(s3_render_worker, bucket, client,
                                                     django_user_model):
    sketch = services.sketch_create(code=read_sketch("good/lines.js"), prompt="pencil lines")
    render = services.render_create(sketch=sketch, seed=3)  # queued on commit
    wait_for(lambda: Render.objects.get(pk=render.pk).status != "pending",
             worker=s3_render_worker)
    render.refresh_from_db()
    assert render.status == "ok", render.violation_details
    # The picture, and the calls it was painted from (paint by construction).
    assert bucket.keys() == {render.png.name, render.calls.name}
    stored = bucket.read(render.png.name)
    assert stored.startswith(PNG_MAGIC)

    client.force_login(django_user_model.objects.create_user("viewer", password="x"))
    response = client.get(reverse("sketches:render_png", args=[render.pk]))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == stored
    calls = client.get(reverse("sketches:render_calls", args=[render.pk]))
    assert calls.status_code == 200 and calls.json()["frames"]


@pytest.mark.django_db
def test_a_snapshot_freezes_and_exports_from_the_bucket(bucket, tmp_path):
    renders = pool_renders_create(3, prompt="a tulip")
    for render in renders:
        grades_give(render, "love")
    assert {r.png.name for r in renders} <= bucket.keys()
    snapshot = snapshot_freeze(name="in the bucket")
    out = tmp_path / "export.zip"
    summary = snapshot_export_zip(snapshot, out)
    assert (summary.members, summary.pngs, summary.missing_pngs) == (3, 3, [])
    with zipfile.ZipFile(out) as archive:
        exported = {archive.read(name) for name in archive.namelist() if name.endswith(".png")}
    assert exported == {bucket.read(member.png) for member in snapshot.members.all()}


@pytest.mark.django_db
def test_reward_signals_and_the_reward_model_read_renders_from_the_bucket(bucket):
    from pool.reward.features import decode, load_images
    from training.reward.inputs import SignalContext, rollout_from_render

    (render,) = pool_renders_create(1, prompt="a poppy")
    grades_give(render, "love")
    stored = bucket.read(render.png.name)

    rollout = rollout_from_render(render)
    assert rollout.picture.path is None  # no local file to point at
    assert rollout.picture.data == stored

    member = snapshot_freeze(name="references").members.get()
    context = SignalContext(judge=None, scorer=None)
    assert context.reference_picture(member).data == stored

    images = load_images([render.png.name], 16, storage=default_storage)
    assert images.shape == (1, 3, 16, 16)
    assert (images[0].numpy() == decode(stored, 16)).all()


@pytest.mark.django_db
def test_an_import_reads_its_upload_from_the_bucket(bucket, django_user_model):
    line = (b'{"code": "function setup() { createCanvas(100, 100, WEBGL); }", '
            b'"prompt": "from the bucket"}\n')
    upload = SimpleUploadedFile("sketches.jsonl", line, content_type="application/jsonl")
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    job = import_job_create(upload=upload, kind="jsonl", uploaded_by=staff)
    assert job.archive.name in bucket.keys()
    assert bucket.read(job.archive.name) == line

    job = job_run_here(kind="import", pk=job.pk)
    assert job.status == JobStatus.DONE, job.error
    assert Sketch.objects.filter(prompt="from the bucket").count() == 1


def test_the_settings_build_an_s3_storage_from_the_environment():
    """What a worker gets from PAINTRL_S3_*: the same entry the tests use."""
    env = {"PAINTRL_S3_BUCKET": "paintrl-elsewhere", "PAINTRL_S3_ENDPOINT_URL": "http://s3:9000",
           "PAINTRL_S3_PREFIX": "site-a", "DJANGO_SETTINGS_MODULE": "paintrl_site.settings"}
    code = ("import json, django; django.setup(); from django.conf import settings; "
            "print(json.dumps(settings.STORAGES['default']))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == s3_storage(bucket="paintrl-elsewhere",
                                         endpoint_url="http://s3:9000", prefix="site-a")


def test_bytes_round_trip_through_the_storage_api(bucket):
    from files.stored import local_copy, local_path, read_bytes

    name = default_storage.save("probe/file.tar.gz", io.BytesIO(b"payload"))
    assert local_path(name) is None
    assert read_bytes(name) == b"payload"
    with local_copy(name) as path:
        assert path.read_bytes() == b"payload" and path.name.endswith(".tar.gz")
    assert not path.exists()
