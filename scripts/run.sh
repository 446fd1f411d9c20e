#!/usr/bin/env bash
# make run: a real benchmark end to end on the built-in synthetic model and data.
set -euo pipefail
BIN=${1:-bin/mlperf}
"$BIN" version
