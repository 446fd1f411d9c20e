#!/usr/bin/env bash
# Runs the 3D-UNet benchmark with the mlperf binary and reports the
# wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run unet3d`.
#
# Usage: run_and_time.sh [mlperf run unet3d flags...]
#   e.g. run_and_time.sh --scenario Offline --model models/3dunet_kits19_128x128x128_dynbatch.onnx --data build/preprocessed_data
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" unet3d "$@"
