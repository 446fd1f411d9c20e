#!/usr/bin/env bash
# Copies the uncased BERT WordPiece vocabulary (the MLPerf vocab.txt, md5
# 64800d5d8528ce344256daf115d4965e) from the Go module
# github.com/sugarme/tokenizer@v0.3.0 (pretrained/model/bert-base-uncased-vocab.txt)
# into DEPS/bert/vocab.txt (DEPS is the first argument, default .deps).
# Idempotent: does nothing when the checked file is already there.
set -euo pipefail
DEST=${1:-.deps}/bert
MD5=64800d5d8528ce344256daf115d4965e
OUT="$DEST/vocab.txt"
if [ -f "$OUT" ] && echo "$MD5  $OUT" | md5sum -c --status; then
  exit 0
fi
command -v go >/dev/null || { echo "bert-vocab: go not found on PATH" >&2; exit 1; }
dir=$(go mod download -json github.com/sugarme/tokenizer@v0.3.0 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
src="$dir/pretrained/model/bert-base-uncased-vocab.txt"
if [ -z "$dir" ] || [ ! -f "$src" ]; then
  echo "bert-vocab: cannot find $src (go mod download github.com/sugarme/tokenizer@v0.3.0 failed?)" >&2
  exit 1
fi
got=$(md5sum "$src" | cut -d' ' -f1)
if [ "$got" != "$MD5" ]; then
  echo "bert-vocab: md5 mismatch for $src: got $got, want $MD5" >&2
  exit 1
fi
mkdir -p "$DEST"
cp "$src" "$OUT.tmp"
chmod 644 "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "bert-vocab: wrote $OUT"
