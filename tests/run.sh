#!/usr/bin/env bash
# Installs everything the test suite needs, then runs it.
# As root, Debian's nginx, apache2, openssl, wrk and fcgiwrap are installed with apt-get when missing
# (behaviour tests run the real servers); the Python package and its test extras with pip.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=""
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
  command -v apache2 >/dev/null || [ -x /usr/sbin/apache2 ] || missing="$missing apache2"
  command -v openssl >/dev/null || missing="$missing openssl"
  command -v wrk >/dev/null || missing="$missing wrk"
  [ -x /usr/sbin/fcgiwrap ] || missing="$missing fcgiwrap"
  if [ -n "$missing" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  fi
fi
PY="${PYTHON:-python3}"
"$PY" -m pip install --quiet --disable-pip-version-check ".[test]"
# This run's temporary files go under a root of its own: pytest prunes the directories of older runs under
# a shared root, so a second run on the same machine could remove this one's while it is going.
tmproot="$(mktemp -d "${TMPDIR:-/tmp}/apache2nginx-tests.XXXXXX")"
export PYTEST_DEBUG_TEMPROOT="$tmproot"
status=0
"$PY" -m pytest "$@" || status=$?
rm -rf "$tmproot"
exit "$status"
