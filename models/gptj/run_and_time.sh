#!/usr/bin/env bash
# Runs the GPT-J 6B (CNN-DailyMail) benchmark with the mlperf binary and
# reports the wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run gptj`.
#
# Usage: run_and_time.sh [mlperf run gptj flags...]
#   e.g. run_and_time.sh --scenario Offline --model gptj-onnx/model.onnx --data build/data
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" gptj "$@"
