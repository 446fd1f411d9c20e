#!/usr/bin/env bash
# Downloads the SDXL data set (the reference's 5000 COCO 2014 captions,
# the fixed latents and the FID statistics, each checked):
# datasets/coco2014/download_dataset.sh does the work.
#
# Usage: download_dataset.sh [-d DIR] [-m MAX] [-a]   (default build/data/coco2014)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/coco2014/download_dataset.sh" "$@"
