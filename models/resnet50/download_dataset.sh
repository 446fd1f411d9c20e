#!/usr/bin/env bash
# Prepares the ImageNet 2012 validation set for ResNet50 (the 50 000
# images and val_map.txt): datasets/imagenet/download_dataset.sh does the
# work. ImageNet needs an account: download ILSVRC2012_img_val.tar by hand
# (see that script) and give it with -t.
#
# Usage: download_dataset.sh [-d DATA_DIR] [-t VAL_TAR] [-c CAFFE_TGZ]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/imagenet/download_dataset.sh" "$@"
