# syntax=docker/dockerfile:1
# One image for the web, worker, beat and migrate services (docker-compose.yml; docs/deployment.md).
# Two stages: the builder turns requirements.txt (pinned by constraints.txt) into wheels, with a
# compiler at hand should a dependency ever ship without one; the runtime stage installs those
# wheels offline and holds no compiler, no build headers and no dev/test requirements.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- builder: wheels ----------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /wheels
COPY requirements.txt constraints.txt ./
RUN pip wheel --wheel-dir /wheels -r requirements.txt -c constraints.txt

# --- runtime --------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=deniable.settings.prod \
    DENIABLE_VAR_DIR=/app/var \
    DENIABLE_BEAT_HEARTBEAT=/tmp/deniable-beat-heartbeat

# A system user with no login shell and no home; the code stays root-owned (read-only to it).
RUN groupadd --system --gid 10001 deniable \
    && useradd --system --uid 10001 --gid deniable --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin deniable

# The builder's wheels are bind-mounted, not copied: they never become a layer of this image.
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    pip install --no-index --find-links=/wheels -r /wheels/requirements.txt -c /wheels/constraints.txt

WORKDIR /app
COPY . .
# var/ (SQLite when no DATABASE_URL, collected static files, beat's schedule) is the only
# directory the app writes to.
RUN mkdir -p /app/var/static && chown -R deniable:deniable /app/var
USER deniable:deniable
RUN DJANGO_SECRET_KEY=build-only-not-a-secret python manage.py collectstatic --noinput

EXPOSE 8000
# The web container's check: GET /healthz (database, cache, broker) must answer 200. The worker
# and beat override it in docker-compose.yml (celery ping; beat's heartbeat file).
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-m", "deniable.healthcheck"]
CMD ["gunicorn", "-c", "gunicorn.conf.py", "deniable.wsgi:application"]
