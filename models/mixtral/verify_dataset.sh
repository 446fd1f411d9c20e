#!/usr/bin/env bash
# Verifies a downloaded Mixtral-8x7B data set file by its MD5:
# datasets/mixtral/verify_dataset.sh does the work (`mlperf dataset verify
# mixtral --official` checks the content too).
#
# Usage: verify_dataset.sh [FILE]   (default build/data/mixtral/09292024_mixtral_15k_mintoken2_v1.pkl)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/mixtral/verify_dataset.sh" "$@"
