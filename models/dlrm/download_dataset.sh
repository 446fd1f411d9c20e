#!/usr/bin/env bash
# Downloads the DLRMv2 data set: datasets/criteo/download_dataset.sh does
# the work.
#
# Usage: download_dataset.sh [DIR]   (default build/data/criteo;
# CRITEO_METADATA_URL overrides the source, MLC_R2_TOKEN gives a token)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/criteo/download_dataset.sh" "$@"
