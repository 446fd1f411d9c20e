#!/usr/bin/env bash
# Verifies the DLRMv2 data set's three files against the MD5s published
# in the MLPerf training repository (mlcommons/training
# recommendation_v2/torchrec_dlrm/md5sums_MLPerf_v2_synthetic_multi_hot_sparse_dataset.txt
# and md5sums_preprocessed_criteo_click_logs_dataset.txt), reading each
# file once as a stream (md5sum). The files are 60 GB and more: this takes
# minutes. `mlperf dataset verify criteo --data DIR` also checks their
# format first.
#
# Usage: verify_dataset.sh [DIR]   (default build/data/criteo)
# Environment: CRITEO_MD5_LIST replaces the published list (an md5sum -c
# file naming the three files), for mirrors and tests.
set -euo pipefail
DIR=${1:-build/data/criteo}
for f in day_23_dense.npy day_23_labels.npy day_23_sparse_multi_hot.npz; do
  if [ ! -f "$DIR/$f" ]; then
    echo "criteo: $DIR/$f not found; run datasets/criteo/download_dataset.sh" >&2
    exit 1
  fi
done
command -v md5sum >/dev/null || { echo "criteo: md5sum not found; install coreutils" >&2; exit 1; }
if [ -n "${CRITEO_MD5_LIST:-}" ]; then
  LIST=$(cat "$CRITEO_MD5_LIST")
else
  LIST="cdf7af87cbc7e9b468c0be46b1767601  day_23_dense.npy
dd68f93301812026ed6f58dfb0757fa7  day_23_labels.npy
c46b7e31ec6f2f8768fa60bdfc0f6e40  day_23_sparse_multi_hot.npz"
fi
if (cd "$DIR" && echo "$LIST" | md5sum -c -); then
  echo "criteo: $DIR matches the published MD5s"
else
  echo "criteo: files in $DIR do not match the published MD5s (download them again)" >&2
  exit 1
fi
