#!/usr/bin/env bash
# Runs the Llama 3.1 8B (CNN-DailyMail) benchmark with the mlperf binary and
# reports the wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run llama3.1-8b`.
#
# Usage: run_and_time.sh [mlperf run llama3.1-8b flags...]
#   e.g. run_and_time.sh --scenario Offline --model build/models/llama3.1-8b-onnx/model.onnx \
#          --data build/data/llama3.1-8b --tokenizer build/models/Llama-3.1-8B-Instruct \
#          --user-conf models/llama3/user.conf --backend cuda --batch 64
#        run_and_time.sh --scenario Server --model-name llama3_1-8b-interactive ...
#        run_and_time.sh --model-name llama3_1-8b-edge --scenario SingleStream ...
#        run_and_time.sh --model synthetic:tiny --data synthetic --max-new-tokens 16   (a smoke test)
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" llama3.1-8b "$@"
