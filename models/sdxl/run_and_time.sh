#!/usr/bin/env bash
# Runs the SDXL (COCO-2014 captions) benchmark with the mlperf binary and
# reports the wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run sdxl`.
#
# Usage: run_and_time.sh [mlperf run sdxl flags...]
#   e.g. run_and_time.sh --scenario Offline --model build/models/sdxl-onnx \
#          --data build/data/coco2014 --backend cuda \
#          --fid-model build/models/inception.onnx --clip-model build/models/clip-vit-b32
#        run_and_time.sh --model synthetic:tiny --data synthetic --mode accuracy   (a smoke test)
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" sdxl "$@"
