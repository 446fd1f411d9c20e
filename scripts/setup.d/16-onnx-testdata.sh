#!/usr/bin/env bash
# ONNX's backend test data (Debian libonnx-testdata, ONNX 1.12: 1,072
# graphs with reference inputs and outputs, 6 MB download, 40 MB on disk)
# for the ONNX Runtime conformance test of backend/ort. Optional: where it
# cannot be installed (no apt-get, no root) this step says so and setup
# goes on; the test then skips with that reason. Idempotent.
set -euo pipefail
PKG=libonnx-testdata
DATA=/usr/share/libonnx-testdata/data
[ -d "$DATA/node" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup onnx-testdata: no apt-get; the ONNX Runtime conformance test will skip (set MLPERF_ONNX_TESTDATA to a copy of onnx/backend/test/data to run it)" >&2
  exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup onnx-testdata: not root; apt-get install -y $PKG to run the ONNX Runtime conformance test" >&2
    exit 0
  fi
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q --no-install-recommends "$PKG" >/dev/null 2>&1; then
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q --no-install-recommends "$PKG" >/dev/null
fi
echo "installed $PKG ($DATA)"
