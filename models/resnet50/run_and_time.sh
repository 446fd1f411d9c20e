#!/usr/bin/env bash
# Runs the ResNet50 benchmark with the mlperf binary and reports the
# wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run resnet50`.
#
# Usage: run_and_time.sh [mlperf run resnet50 flags...]
#   e.g. run_and_time.sh --scenario Offline --model models/resnet50_v1.onnx --data imagenet
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" resnet50 "$@"
