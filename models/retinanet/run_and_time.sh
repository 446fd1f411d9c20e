#!/usr/bin/env bash
# Runs the RetinaNet benchmark with the mlperf binary and reports the
# wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run retinanet`.
#
# Usage: run_and_time.sh [mlperf run retinanet flags...]
#   e.g. run_and_time.sh --scenario Offline --model models/resnext50_32x4d_fpn.onnx --data open-images-v6-mlperf
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" retinanet "$@"
