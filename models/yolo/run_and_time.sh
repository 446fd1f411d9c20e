#!/usr/bin/env bash
# Runs the YOLO benchmark with the mlperf binary and reports the
# wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run yolo`.
#
# Usage: run_and_time.sh [mlperf run yolo flags...]
#   e.g. run_and_time.sh --scenario Offline --model yolo11l.onnx --data build/data/coco2017
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" yolo "$@"
