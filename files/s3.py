"""The default storage as an S3-compatible bucket (django-storages): one
place that says how, for settings.py and for the tests' own bucket."""
from __future__ import annotations

S3_BACKEND = "storages.backends.s3.S3Storage"


def s3_storage(*, bucket: str, endpoint_url: str | None = None, region: str | None = None,
               prefix: str = "") -> dict:
    """A STORAGES entry for `bucket`. The credentials are boto3's own
    (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance
    role), so none is ever written into settings."""
    return {
        "BACKEND": S3_BACKEND,
        "OPTIONS": {
            "bucket_name": bucket,
            # None: AWS itself; else the server's address (http://minio:9000).
            "endpoint_url": endpoint_url or None,
            "region_name": region or None,
            # A folder of the bucket, so one bucket can hold several sites.
            "location": prefix,
            # A name is never reused: a re-render's PNG gets a name of its own
            # (sketches.models.render_png_path), and a reward model's loaded
            # weights are known by name and size (pool/reward/scoring.py).
            "file_overwrite": False,
            # Private objects: pages serve them through Django, behind login.
            "default_acl": None,
            "querystring_auth": True,
        },
    }
