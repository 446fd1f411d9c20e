#!/usr/bin/env bash
# Runs the Llama 2 70B (OpenOrca) benchmark with the mlperf binary and
# reports the wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run llama2`.
#
# Usage: run_and_time.sh [mlperf run llama2 flags...]
#   e.g. run_and_time.sh --scenario Offline --model build/llama2-70b-onnx/model.onnx \
#          --data build/data/open-orca/open_orca_gpt4_tokenized_llama.sampled_24576.parquet \
#          --user-conf models/llama2/user.conf --backend cuda --batch 64
#        run_and_time.sh --scenario Server --model-name llama2-70b-interactive ...
#        run_and_time.sh --model synthetic:tiny --data synthetic --max-new-tokens 16   (a smoke test)
# Environment: MLPERF_BIN, the mlperf binary (default: bin/mlperf from the
# repository root, built with `make build`, else mlperf on PATH).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
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
echo "run_and_time: start $(date -u +%Y-%m-%dT%H:%M:%SZ): $BIN run llama2 $*"
status=0
"$BIN" run llama2 "$@" || status=$?
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
echo "run_and_time: end $(date -u +%Y-%m-%dT%H:%M:%SZ), exit status $status, wall-clock ${elapsed}s"
exit "$status"
