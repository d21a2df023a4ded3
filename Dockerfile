# One image for web, worker and beat (docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=deniable.settings.prod \
    DENIABLE_VAR_DIR=/app/var

WORKDIR /app
COPY requirements.txt constraints.txt ./
RUN pip install --no-cache-dir -r requirements.txt -c constraints.txt

COPY . .
RUN DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 deniable \
    && mkdir -p /app/var && chown -R deniable /app/var
USER deniable

EXPOSE 8000
CMD ["gunicorn", "-c", "gunicorn.conf.py", "deniable.wsgi:application"]
