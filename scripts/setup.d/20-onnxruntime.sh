#!/usr/bin/env bash
# Installs the ONNX Runtime shared library (Linux x86-64, CPU) from the npm
# package onnxruntime-node into DEPS/onnxruntime (DEPS is the first argument, default .deps), checked by
# sha256. Idempotent: does nothing when the checked file is already there.
# The npm install script of that package downloads from hosts these machines
# cannot reach, so the tarball is fetched with `npm pack` and unpacked by tar.
set -euo pipefail
DEST=${1:-.deps}/onnxruntime
VERSION=1.24.3
SHA256=92ba8e44d31b80a34f5e805076a044122c3be1fffe0d88ed790de7267b0b2682
LIB="$DEST/libonnxruntime.so.1"

if [ -f "$LIB" ] && echo "$SHA256  $LIB" | sha256sum -c --status; then
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-onnxruntime: only Linux x86-64 is packaged here; set ONNXRUNTIME_SHARED_LIBRARY_PATH to your own libonnxruntime" >&2; exit 1 ;;
esac
command -v npm >/dev/null || { echo "install-onnxruntime: npm not found; install it (apt-get install npm) and run make setup again" >&2; exit 1; }
mkdir -p "$DEST"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "onnxruntime-node@$VERSION" >/dev/null)
tar -xzf "$tmp/onnxruntime-node-$VERSION.tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
got=$(sha256sum "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "install-onnxruntime: checksum mismatch for libonnxruntime.so.1 from onnxruntime-node@$VERSION: got $got, want $SHA256" >&2
  exit 1
fi
mv "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$LIB"
echo "installed ONNX Runtime $VERSION at $LIB"
