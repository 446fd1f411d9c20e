#!/usr/bin/env bash
# Runs one benchmark with the mlperf binary and reports the wall-clock time
# of the whole run, as the MLPerf rules ask of run_and_time.sh. Each
# models/<benchmark>/run_and_time.sh calls this with its benchmark name.
#
# Usage: run_and_time.sh BENCHMARK [mlperf run BENCHMARK flags...]
# Environment: MLPERF_BIN, the mlperf binary (default: bin/mlperf from the
# repository root, built with `make build`, else mlperf on PATH).
set -euo pipefail

BENCH=${1:?usage: run_and_time.sh BENCHMARK [flags...]}
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${MLPERF_BIN:-}
if [ -z "$BIN" ]; then
  if [ -x "$ROOT/bin/mlperf" ]; then
    BIN=$ROOT/bin/mlperf
  elif command -v mlperf >/dev/null; then
    BIN=$(command -v mlperf)
  else
    echo "run_and_time: no mlperf binary; run 'make build' or set MLPERF_BIN" >&2
    exit 1
  fi
fi

start=$(date +%s.%N)
echo "run_and_time: start $(date -u +%Y-%m-%dT%H:%M:%SZ): $BIN run $BENCH $*"
status=0
"$BIN" run "$BENCH" "$@" || status=$?
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
echo "run_and_time: end $(date -u +%Y-%m-%dT%H:%M:%SZ), exit status $status, wall-clock ${elapsed}s"
exit "$status"
