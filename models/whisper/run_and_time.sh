#!/usr/bin/env bash
# Runs the Whisper (LibriSpeech) benchmark with the mlperf binary and
# reports the wall-clock time of the whole run, as the MLPerf rules ask of
# run_and_time.sh. Arguments are passed to `mlperf run whisper`.
#
# Usage: run_and_time.sh [mlperf run whisper flags...]
#   e.g. run_and_time.sh --scenario Offline --model build/models/whisper-large-v3-onnx \
#          --data build/data/librispeech --backend cuda --batch 16
#        run_and_time.sh --model synthetic:tiny --data synthetic --mode accuracy   (a smoke test)
# Environment: MLPERF_BIN, as scripts/run_and_time.sh reads it.
exec "$(dirname "$0")/../../scripts/run_and_time.sh" whisper "$@"
