#!/usr/bin/env bash
# Downloads the DLRMv2 inference data set (day 23 of Criteo 1TB,
# TorchRec-preprocessed, with the MLPerf synthetic multi-hot ids) from the
# MLCommons R2 bucket, as the reference README's
#   mlc-r2-downloader.sh -d ./dataset \
#     https://inference.mlcommons-storage.org/metadata/dlrm-v2-preprocessed-dataset.uri
# does: every file is checked against the MD5 list published beside the
# metadata; a mismatch deletes the file and fails. The bucket is for
# MLCommons members: a browser login through cloudflared, or MLC_R2_TOKEN
# (see scripts/mlc-r2-download.sh). The three files mlperf reads
# (day_23_dense.npy, day_23_labels.npy, day_23_sparse_multi_hot.npz) are
# then looked for in the folder; verify_dataset.sh checks them against the
# MD5s of the MLPerf training repository.
#
# Usage: download_dataset.sh [DIR]   (default build/data/criteo)
# Environment: CRITEO_METADATA_URL replaces the metadata URL (mirrors, tests).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-build/data/criteo}
URL=${CRITEO_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/dlrm-v2-preprocessed-dataset.uri}
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
data=
for f in day_23_dense.npy day_23_labels.npy day_23_sparse_multi_hot.npz; do
  p=$(find "$DIR" -name "$f" -type f | head -n 1)
  if [ -z "$p" ]; then
    echo "criteo: $f is not among the downloaded files in $DIR" >&2
    exit 1
  fi
  d=$(dirname "$p")
  if [ -n "$data" ] && [ "$d" != "$data" ]; then
    echo "criteo: the day-23 files are in different folders ($data, $d); move them into one" >&2
    exit 1
  fi
  data=$d
done
echo "criteo: data set in $data; check it with datasets/criteo/verify_dataset.sh $data and run with --data $data"
