#!/usr/bin/env bash
# Make sure Debian's Chromium is present for the browser tests (never `playwright install`:
# it downloads a browser build, which this network does not allow).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian chromium for the browser tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "chromium is missing: install it with 'sudo apt-get install -y chromium'." >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
fi
