#!/usr/bin/env bash
# Downloads the Llama 2 70B data set (the MLCommons preprocessed OpenOrca
# pickles, MD5-checked): datasets/openorca/download_dataset.sh does the work.
#
# Usage: download_dataset.sh [DIR]   (default build/data/open-orca;
# OPENORCA_METADATA_URL overrides the source, MLC_R2_TOKEN gives a token)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/openorca/download_dataset.sh" "$@"
