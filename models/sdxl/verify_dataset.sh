#!/usr/bin/env bash
# Verifies the SDXL data set folder (captions and latents against the
# reference's MD5s, 5000 captions, the FID statistics present):
# datasets/coco2014/verify_dataset.sh does the work.
#
# Usage: verify_dataset.sh [DIR]   (default build/data/coco2014)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/coco2014/verify_dataset.sh" "$@"
