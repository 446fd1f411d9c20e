#!/usr/bin/env bash
# scripts/device/stage.sh [CHUNK_MIB]: on this (CPU) machine, packs what the
# GPU checks of run.sh need into .gpu-stage/ (git-ignored through
# .git/info/exclude), as carry folders c1, c2, ... of one xz chunk of at most
# CHUNK_MIB MiB each (default 40: a device call carries at most 64 MiB, the
# working tree included). See scripts/device/README.md for the calls.
#
# The payload: the mlperf binary (built here: the device has no Go) and the
# libjpeg it links, ONNX Runtime 1.29.0 with its CUDA and TensorRT
# providers (from `MLPERF_GPU=1 make setup`), the tokenizer files of
# MLPERF_DEPS (every folder but onnxruntime, ollama, node_modules), and ONNX's backend test data (libonnx-testdata) when
# installed. Every chunk folder holds MANIFEST: the chunk count and the
# sha256 of the whole archive, which run.sh checks before unpacking.
#
# Environment: MLPERF_DEPS (default .deps), ONNXRUNTIME_SHARED_LIBRARY_PATH
# (default $MLPERF_DEPS/onnxruntime/libonnxruntime.so.1; the providers must
# be beside it), MLPERF_STAGE_XZ (xz level, default 6; 0 for a quick local
# dry run).
set -euo pipefail
cd "$(dirname "$0")/../.."
CHUNK_MIB=${1:-40}
case "$CHUNK_MIB" in '' | *[!0-9]*) echo "stage: CHUNK_MIB must be a whole number of MiB, got $CHUNK_MIB" >&2; exit 2 ;; esac
DEPS=${MLPERF_DEPS:-$PWD/.deps}
CORE=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$DEPS/onnxruntime/libonnxruntime.so.1}
ORT=$(dirname "$CORE")
LEVEL=${MLPERF_STAGE_XZ:-6}
STAGE=.gpu-stage
die() { echo "stage: $*" >&2; exit 1; }

for f in libonnxruntime_providers_shared.so libonnxruntime_providers_cuda.so libonnxruntime_providers_tensorrt.so providers.version; do
  [ -f "$ORT/$f" ] || die "$ORT/$f is missing: run MLPERF_GPU=1 make setup (or make setup-gpu) first"
done
[ -f "$CORE" ] || die "$CORE is missing: run make setup"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$STAGE/" "$exclude" 2>/dev/null || echo "/$STAGE/" >>"$exclude"

rm -rf "$STAGE"
pay=$STAGE/payload
mkdir -p "$pay/bin" "$pay/lib" "$pay/onnxruntime" "$pay/deps"
echo "stage: building bin/mlperf (linux/amd64)"
GOOS=linux GOARCH=amd64 CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X main.revision=$(git rev-parse HEAD)" -o "$pay/bin/mlperf" ./cmd/mlperf
# Shared libraries the binary needs beyond glibc (libjpeg.so.62 of
# Debian's libjpeg62-turbo, which an Ubuntu image lacks).
while read -r name _ path _; do
  case "$name" in libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux* | linux-vdso*) continue ;; esac
  [ -f "$path" ] && cp -L "$path" "$pay/lib/$name"
done < <(ldd "$pay/bin/mlperf" | grep "=>")
# Big files first, so that the last chunk (carried by the final call,
# which also runs everything) is the smallest.
cp -L "$ORT/libonnxruntime_providers_cuda.so" "$CORE" "$ORT/libonnxruntime_providers_shared.so" \
  "$ORT/libonnxruntime_providers_tensorrt.so" "$ORT/providers.version" "$pay/onnxruntime/"
mv "$pay/onnxruntime/$(basename "$CORE")" "$pay/onnxruntime/libonnxruntime.so.1" 2>/dev/null || true
# The benchmarks' side files (tokenizers, vocabularies): every folder of
# the deps folder but ONNX Runtime's (above), ollama's and npm's.
for d in "$DEPS"/*/; do
  case $(basename "$d") in onnxruntime | ollama | node_modules) continue ;; esac
  cp -rL "$d" "$pay/deps/"
done
if [ -d /usr/share/libonnx-testdata/data/node ]; then
  cp -r /usr/share/libonnx-testdata/data "$pay/onnx-testdata"
else
  echo "stage: libonnx-testdata not installed; the device run skips the ONNX test data (apt-get install libonnx-testdata)" >&2
fi

echo "stage: compressing (xz -$LEVEL)"
tar -C "$pay" -cf - onnxruntime/libonnxruntime_providers_cuda.so onnxruntime/libonnxruntime.so.1 bin lib deps \
  onnxruntime/libonnxruntime_providers_shared.so onnxruntime/libonnxruntime_providers_tensorrt.so onnxruntime/providers.version \
  $( [ -d "$pay/onnx-testdata" ] && echo onnx-testdata ) |
  xz -T0 -"$LEVEL" >"$STAGE/payload.tar.xz"
rm -rf "$pay"
sum=$(sha256sum "$STAGE/payload.tar.xz" | cut -d' ' -f1)
size=$(stat -c %s "$STAGE/payload.tar.xz")
split -b "${CHUNK_MIB}M" -d -a 2 "$STAGE/payload.tar.xz" "$STAGE/part-"
rm "$STAGE/payload.tar.xz"
parts=("$STAGE"/part-*)
n=${#parts[@]}
i=0
for p in "${parts[@]}"; do
  i=$((i + 1))
  mkdir -p "$STAGE/c$i"
  mv "$p" "$STAGE/c$i/"
  printf 'parts %d\nsha256 %s\nbytes %d\n' "$n" "$sum" "$size" >"$STAGE/c$i/MANIFEST"
done
tree_mib=$(( ($(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | paste -sd+ | bc) + 1048575) / 1048576 ))
echo "stage: $n chunk folders in $STAGE (payload $((size / 1048576)) MiB, sha256 $sum); tracked files $tree_mib MiB travel with each call"
for k in $(seq 1 "$n"); do
  echo "  call $k: carry [\"$STAGE/c$k\"] ($(du -sm "$STAGE/c$k" | cut -f1) MiB)"
done
