#!/usr/bin/env bash
# Headless Chromium for the report's browser test (report: each report kind
# rendered to a PNG and its DOM), only when asked: MLPERF_SETUP_BROWSER=1.
# It is not cheap (about 100 Debian packages, some 300 MB on disk), and
# nothing but that one test uses it: without it the test skips, saying
# so, and every other report test still reads the pages' SVG and tables.
# Idempotent: does nothing when a chromium is on PATH.
set -euo pipefail
[ "${MLPERF_SETUP_BROWSER:-0}" = 1 ] || exit 0
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && exit 0
done
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup browser: install Chromium with your package manager (the report's browser test looks for chromium, chromium-browser or google-chrome)" >&2
  exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup browser: run as root, or: apt-get install -y chromium" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium
