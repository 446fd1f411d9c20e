#!/usr/bin/env bash
# Runs the Mixtral-8x7B benchmark with the mlperf binary and reports the
# wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run mixtral`.
#
# Usage: run_and_time.sh [mlperf run mixtral flags...]
#   e.g. run_and_time.sh --scenario Offline --model build/models/mixtral-onnx/model.onnx \
#          --data build/data/mixtral --user-conf models/mixtral/user.conf --backend cuda --batch 32
#        run_and_time.sh --scenario Server --backend openai --endpoint http://vllm:8000 --served-model mistralai/Mixtral-8x7B-Instruct-v0.1 ...
#        run_and_time.sh --model synthetic:tiny --data synthetic --max-new-tokens 16   (a smoke test)
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" mixtral "$@"
