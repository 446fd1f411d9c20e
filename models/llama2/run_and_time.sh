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
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" llama2 "$@"
