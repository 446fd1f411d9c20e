#!/usr/bin/env bash
# Installs a copy of what the earlier steps put into DEPS (the ONNX Runtime
# library and, after MLPERF_GPU=1, its GPU execution providers, the BERT
# vocabulary, the GPT-J and Llama 2 tokenizer data, ollama) into the
# per-user folder, $XDG_DATA_HOME/mlperf-go/deps or
# ~/.local/share/mlperf-go/deps, which the binary searches last
# (internal/deps). A binary run from another folder, or installed with
# `go install`, then finds them without MLPERF_DEPS.
#
# Each file is hard-linked when DEPS and the per-user folder share a file
# system, else copied: not symlinked, so that deleting the clone leaves a
# working install. Idempotent: a file already there with the same
# contents is left alone. MLPERF_SKIP_USER_DEPS=1 skips this step.
set -euo pipefail
DEPS=${1:-.deps}
[ "${MLPERF_SKIP_USER_DEPS:-0}" = 1 ] && exit 0
if [ -n "${XDG_DATA_HOME:-}" ] && [ "${XDG_DATA_HOME#/}" != "$XDG_DATA_HOME" ]; then
  USER_DEPS=$XDG_DATA_HOME/mlperf-go/deps
elif [ -n "${HOME:-}" ]; then
  USER_DEPS=$HOME/.local/share/mlperf-go/deps
else
  echo "setup user-deps: neither HOME nor XDG_DATA_HOME is set; skipped (set MLPERF_DEPS=$DEPS to run the binary from other folders)" >&2
  exit 0
fi

installed=()
for rel in onnxruntime/libonnxruntime.so.1 onnxruntime/libonnxruntime_providers_shared.so onnxruntime/libonnxruntime_providers_cuda.so onnxruntime/libonnxruntime_providers_tensorrt.so onnxruntime/providers.version bert/vocab.txt gptj/encoder.json gptj/vocab.bpe llama2/llama-tokenizer.js ollama/ollama; do
  src=$DEPS/$rel dst=$USER_DEPS/$rel
  [ -f "$src" ] || continue
  if [ -e "$dst" ] && { [ "$src" -ef "$dst" ] || cmp -s "$src" "$dst"; }; then
    continue
  fi
  mkdir -p "$(dirname "$dst")"
  tmp=$dst.tmp.$$
  rm -f "$tmp"
  if ! ln "$src" "$tmp" 2>/dev/null; then
    cp -p "$src" "$tmp"
  fi
  mv -f "$tmp" "$dst"
  installed+=("$rel")
done
if [ ${#installed[@]} -gt 0 ]; then
  echo "setup user-deps: installed ${installed[*]} in $USER_DEPS"
fi
