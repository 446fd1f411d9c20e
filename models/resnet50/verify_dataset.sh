#!/usr/bin/env bash
# Verifies the ImageNet validation folder ResNet50 reads (every image of
# val_map.txt present, and matching its MD5 when download_dataset.sh
# recorded them): datasets/imagenet/verify_dataset.sh does the work.
#
# Usage: verify_dataset.sh [-d DATA_DIR] [-n EXPECTED_COUNT]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/imagenet/verify_dataset.sh" "$@"
