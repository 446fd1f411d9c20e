#!/usr/bin/env bash
# Downloads the official DLRMv2 weights (a 97 GB TorchRec torchsnapshot of
# the sharded DLRM-DCNv2 training state) from the MLCommons R2 bucket, as
# the reference README's
#   mlc-r2-downloader.sh https://inference.mlcommons-storage.org/metadata/dlrm-v2-model-weights.uri
# does (every file MD5-checked against the list published beside it; the
# bucket is for MLCommons members: see scripts/mlc-r2-download.sh). There
# is no ONNX model: convert the snapshot once with
#   mlperf model convert dlrm --snapshot DIR -o OUT
# (see models/dlrm/README.md; OUT needs about 100 GB).
#
# Usage: download_model.sh [DIR]   (default build/models/dlrm)
# Environment: DLRM_METADATA_URL replaces the metadata URL (mirrors, tests).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-build/models/dlrm}
URL=${DLRM_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/dlrm-v2-model-weights.uri}
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
snap=$(find "$DIR" -name .snapshot_metadata -type f | head -n 1)
if [ -z "$snap" ]; then
  echo "dlrm: no torchsnapshot (.snapshot_metadata) among the downloaded files in $DIR" >&2
  exit 1
fi
echo "dlrm: snapshot in $(dirname "$snap"); convert it with: mlperf model convert dlrm --snapshot $(dirname "$snap") -o build/models/dlrm-onnx"
