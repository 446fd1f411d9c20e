#!/usr/bin/env bash
# Downloads the Mixtral-8x7B data set (the validation and calibration
# pickles from the reference's URLs, MD5-checked):
# datasets/mixtral/download_dataset.sh does the work.
#
# Usage: download_dataset.sh [DIR]   (default build/data/mixtral)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/mixtral/download_dataset.sh" "$@"
