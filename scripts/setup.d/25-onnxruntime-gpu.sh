#!/usr/bin/env bash
# Opt-in (MLPERF_GPU=1 make setup, or make setup-gpu): installs ONNX
# Runtime 1.29.0's GPU execution providers, built for CUDA 13 and cuDNN 9,
# beside the core library of 20-onnxruntime.sh in DEPS/onnxruntime (DEPS is
# the first argument, default .deps): ONNX Runtime loads a provider from the
# folder of the libonnxruntime.so.1 it runs, and only from there, so they
# share that folder, and --backend cuda|tensorrt uses them with no setting.
#
# The files come from the npm package com.github.asus4.onnxruntime.linux-x64-gpu
# (MIT; ONNX Runtime 1.29.0's libonnxruntime_providers_{shared,cuda,tensorrt}.so
# as Microsoft builds them), because onnxruntime-node's own install script
# fetches them from NuGet, which these machines cannot reach. The tarball
# (about 180 MB) and each file are checked by sha256; npm's cache makes a
# second install work offline (see scripts/npm-tarball.sh). Idempotent.
# The CUDA libraries themselves are not installed here: --backend cuda finds
# them on the system or in the NVIDIA Python packages (backend/ort).
set -euo pipefail
[ "${MLPERF_GPU:-0}" = 1 ] || exit 0
DEST=${1:-.deps}/onnxruntime
PKG=com.github.asus4.onnxruntime.linux-x64-gpu
VERSION=0.4.9
ORT_VERSION=1.29.0
TARBALL_SHA256=2b459e0c17f340c92970c10ed86de4f37a3009f93c14053e6ad4334cbb6be412
FILES=(
  "libonnxruntime_providers_shared.so c6a12593396095f5670160e284c35d1700b7708cf3037b7042e2a5200ccae772"
  "libonnxruntime_providers_cuda.so 56cf3254b118ad837ccc4ed8f6d1b23504bbf7ef91b34cbc0b289cb7f10b3037"
  "libonnxruntime_providers_tensorrt.so ef6071798a339038ad66c428fb1a809cf8e499bffc3b6870e4e8bc4f4c6a6320"
)

ok=1
for f in "${FILES[@]}"; do
  set -- $f
  if ! { [ -f "$DEST/$1" ] && echo "$2  $DEST/$1" | sha256sum -c --status; }; then ok=0; fi
done
if [ $ok = 1 ] && [ "$(cat "$DEST/providers.version" 2>/dev/null)" = "$ORT_VERSION" ]; then
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-onnxruntime-gpu: the CUDA execution provider is packaged here for Linux x86-64 only" >&2; exit 1 ;;
esac
[ -f "$DEST/libonnxruntime.so.1" ] || { echo "install-onnxruntime-gpu: $DEST/libonnxruntime.so.1 is missing: run make setup first" >&2; exit 1; }
tmp=$(mktemp -d "$DEST/.gpu-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tgz=$(bash "$(dirname "$0")/../npm-tarball.sh" install-onnxruntime-gpu "$PKG" "$VERSION" "$TARBALL_SHA256" "$tmp")
for f in "${FILES[@]}"; do
  set -- $f
  tar --no-same-owner -xzf "$tgz" -C "$tmp" "package/Plugins/Linux/x64/$1"
  got=$(sha256sum "$tmp/package/Plugins/Linux/x64/$1" | cut -d' ' -f1)
  if [ "$got" != "$2" ]; then
    echo "install-onnxruntime-gpu: checksum mismatch for $1 from $PKG@$VERSION: got $got, want $2; nothing was installed" >&2
    exit 1
  fi
done
rm -f "$tgz"
for f in "${FILES[@]}"; do
  set -- $f
  mv -f "$tmp/package/Plugins/Linux/x64/$1" "$DEST/$1"
done
echo "$ORT_VERSION" >"$DEST/providers.version"
echo "installed ONNX Runtime $ORT_VERSION's CUDA and TensorRT execution providers in $DEST (they need CUDA 13 and cuDNN 9 at run time; TensorRT 10 for tensorrt)"
