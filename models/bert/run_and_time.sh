#!/usr/bin/env bash
# Runs the BERT-large (SQuAD v1.1) benchmark with the mlperf binary and
# reports the wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run bert`.
#
# Usage: run_and_time.sh [mlperf run bert flags...]
#   e.g. M=build/data/bert_tf_v1_1_large_fp32_384_v2
#        run_and_time.sh --scenario Offline --model $M/model.onnx --vocab $M/vocab.txt --data build/data
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" bert "$@"
