#!/usr/bin/env bash
# Start the local PostgreSQL and Redis of this machine kind if they are down, then wait for them.
set -euo pipefail
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "PostgreSQL is down; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Redis is down; starting it"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
for _ in $(seq 1 30); do
  if pg_isready -q -h 127.0.0.1 -p 5432 && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "PostgreSQL and Redis are up"
    exit 0
  fi
  sleep 1
done
echo "PostgreSQL or Redis did not come up" >&2
exit 1
