#!/usr/bin/env bash
# Fetches cnn_eval.json for GPT-J: datasets/cnndm/download_dataset.sh does
# the work (no public URL or checksum exists; set CNNDM_URL to a copy and,
# optionally, CNNDM_MD5).
# Usage: download_dataset.sh [DIR]   (default build/data)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/cnndm/download_dataset.sh" "$@"
