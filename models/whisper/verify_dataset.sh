#!/usr/bin/env bash
# Verifies the Whisper data set (the manifest, every clip decoded, every
# transcript): datasets/librispeech/verify_dataset.sh does the work.
#
# Usage: verify_dataset.sh [DIR]   (default build/data/librispeech)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/librispeech/verify_dataset.sh" "$@"
