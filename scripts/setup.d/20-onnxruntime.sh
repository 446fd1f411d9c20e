#!/usr/bin/env bash
# Installs the ONNX Runtime shared library (Linux x86-64) from the npm
# package onnxruntime-node into DEPS/onnxruntime (DEPS is the first
# argument, default .deps), the tarball and the library checked by sha256.
# Idempotent: does nothing when the checked file is already there.
#
# 1.29.0 is the core that the GPU execution providers of
# 25-onnxruntime-gpu.sh are built against (they must match it exactly), so
# CPU and GPU runs use one library; its CPU path passes the same tests as
# 1.24.3 did (see backend/ort/README.md).
set -euo pipefail
DEST=${1:-.deps}/onnxruntime
VERSION=1.29.0
TARBALL_SHA256=cfdfb45ec4044b1fdca43e5d2e180fb6817e649ff8ad1e0dfc90e18e51b67037
SHA256=89688f5cf51c7e31befbb7b9101bc027799009b18d1baa9a5b1146a72e69538d
LIB="$DEST/libonnxruntime.so.1"

if [ -f "$LIB" ] && echo "$SHA256  $LIB" | sha256sum -c --status; then
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-onnxruntime: only Linux x86-64 is packaged here; set ONNXRUNTIME_SHARED_LIBRARY_PATH to your own libonnxruntime" >&2; exit 1 ;;
esac
mkdir -p "$DEST"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tgz=$(bash "$(dirname "$0")/../npm-tarball.sh" install-onnxruntime onnxruntime-node "$VERSION" "$TARBALL_SHA256" "$tmp")
tar --no-same-owner -xzf "$tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
got=$(sha256sum "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "install-onnxruntime: checksum mismatch for libonnxruntime.so.1 from onnxruntime-node@$VERSION: got $got, want $SHA256" >&2
  exit 1
fi
mv -f "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$LIB"
echo "installed ONNX Runtime $VERSION at $LIB"
