#!/usr/bin/env bash
# Verifies the Llama 2 70B data set (MD5s of the download, then the parquet's
# format and invariants): datasets/openorca/verify_dataset.sh does the work.
#
# Usage: verify_dataset.sh [FILE.parquet]
# (MLPERF overrides the mlperf binary; OPENORCA_REQUIRE_OFFICIAL=1 fails on
# any file that is not the official one's shape)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/openorca/verify_dataset.sh" "$@"
