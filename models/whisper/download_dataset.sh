#!/usr/bin/env bash
# Prepares the Whisper data set (LibriSpeech dev-clean and dev-other,
# checked, repacked into clips of at most 30 s, verified):
# datasets/librispeech/download_dataset.sh does the work.
#
# Usage: download_dataset.sh [DIR]   (default build/data/librispeech)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/librispeech/download_dataset.sh" "$@"
