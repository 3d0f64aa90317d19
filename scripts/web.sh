#!/bin/sh
# The Procfile's web process. The default profile (the demo, one machine) runs
# Django's development server; PAINTRL_PROFILE=production runs gunicorn, a
# production WSGI server, with static files served by the app itself
# (WhiteNoise, from `collectstatic`'s folder). PAINTRL_HOST and PAINTRL_PORT
# say where to listen; PAINTRL_WEB_WORKERS how many gunicorn processes serve,
# PAINTRL_WEB_THREADS how many requests each serves at once. Threaded workers:
# a request slowed by a lock or a busy machine no longer stops its worker's
# heartbeat (a sync worker is killed after 30 s, with the requests it holds);
# --preload: a worker forks with the app loaded, rather than loading it while
# requests queue (docs/benchmarks.md, "Grade posts under load").
set -e
bind="${PAINTRL_HOST:-127.0.0.1}:${PAINTRL_PORT:-8000}"
if [ "${PAINTRL_PROFILE:-dev}" = "production" ]; then
    exec gunicorn paintrl_site.wsgi --bind "$bind" --workers "${PAINTRL_WEB_WORKERS:-2}" \
        --worker-class gthread --threads "${PAINTRL_WEB_THREADS:-4}" --preload \
        --access-logfile -
fi
exec python manage.py runserver "$bind" --noreload
