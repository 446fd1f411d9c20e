#!/usr/bin/env bash
# Downloads SQuAD v1.1 dev-v1.1.json for BERT and checks its MD5
# (3e85deb501d4e538b6bc56f786231552): datasets/squad/download_dataset.sh
# does the work.
#
# Usage: download_dataset.sh [DIR]   (default build/data, the reference's
# layout; SQUAD_URL and SQUAD_MD5 override the source and the MD5)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/squad/download_dataset.sh" "$@"
