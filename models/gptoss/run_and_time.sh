#!/usr/bin/env bash
# Runs the gpt-oss-120b benchmark against serving engines with the mlperf
# binary and reports the wall-clock time of the whole run, as the MLPerf
# rules ask of run_and_time.sh. Arguments are passed to `mlperf run
# gpt-oss-120b`.
#
# Usage: run_and_time.sh [mlperf run gpt-oss-120b flags...]
#   e.g. run_and_time.sh --backend sglang --endpoint http://node1:30000 --endpoint http://node2:30000 \
#          --scenario Offline --data build/data/gpt-oss-120b --user-conf models/gptoss/user.conf
#        run_and_time.sh --backend sglang --endpoint http://node1:30000 --mode accuracy ...
#        run_and_time.sh --backend openai --endpoint http://vllm:8000 --served-model openai/gpt-oss-120b \
#          --scenario Server --model-name gpt-oss-120b-interactive ...
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" gpt-oss-120b "$@"
