#!/usr/bin/env bash
# Runs the DeepSeek-R1 benchmark against serving engines with the mlperf
# binary and reports the wall-clock time of the whole run, as the MLPerf
# rules ask of run_and_time.sh. Arguments are passed to `mlperf run
# deepseek-r1`.
#
# Usage: run_and_time.sh [mlperf run deepseek-r1 flags...]
#   e.g. run_and_time.sh --backend sglang --endpoint http://node1:30000 --endpoint http://node2:30000 \
#          --scenario Offline --data build/data/deepseek-r1 --user-conf models/deepseekr1/user.conf
#        run_and_time.sh --backend openai --endpoint http://vllm:8000 --served-model deepseek-ai/DeepSeek-R1 \
#          --scenario Server --model-name deepseek-r1-interactive ...
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" deepseek-r1 "$@"
