#!/usr/bin/env bash
# Verifies the DLRMv2 data set's three files against the MD5s MLCommons
# publishes (minutes: the files are 60 GB and more):
# datasets/criteo/verify_dataset.sh does the work.
#
# Usage: verify_dataset.sh [DIR]   (default build/data/criteo)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../../datasets/criteo/verify_dataset.sh" "$@"
