#!/usr/bin/env bash
# Fetches cnn_eval.json, the GPT-J data set (CNN-DailyMail 3.0.0 validation
# split, 13368 records of {instruction, input, output}), into DIR (default
# build/data, the reference's DATASET_CNNDM_PATH=data layout under build/).
#
# MLCommons publishes no download URL and no checksum for this file: the
# reference builds it with language/gpt-j/download_cnndm.py (Python,
# Hugging Face `datasets`, cnn_dailymail config 3.0.0). So this script
# downloads a copy you name:
#
# Usage: CNNDM_URL=URL [CNNDM_MD5=MD5] download_dataset.sh [DIR]
#   CNNDM_URL  where to fetch cnn_eval.json from (a mirror, your own copy)
#   CNNDM_MD5  expected MD5 of the file; when set, a mismatch is an error
#              and the download is deleted
#   CNNDM_ALLOW_PARTIAL=1 accepts a file with another record count than 13368
# Without CNNDM_URL it prints how to make the file and fails. Every download
# is checked with `mlperf dataset verify cnndm` (MLPERF overrides the mlperf
# binary; default bin/mlperf, else mlperf on PATH) when the binary is
# found, and only a good file is moved under the final name.
set -euo pipefail
DIR=${1:-build/data}
OUT="$DIR/cnn_eval.json"
die() { echo "cnndm: $*" >&2; exit 1; }

if [ -z "${CNNDM_URL:-}" ]; then
  cat >&2 <<'MSG'
cnndm: no public URL serves the GPT-J cnn_eval.json; make it once with the reference:
  git clone https://github.com/mlcommons/inference && cd inference/language/gpt-j
  pip install datasets transformers simplejson && python download_cnndm.py   # writes data/cnn_eval.json
or run `mlcr get,dataset,cnndm,_validation`, then copy the file to DIR, or serve it and set
CNNDM_URL (and CNNDM_MD5 once you know it). For a quick test use `mlperf dataset synth cnndm`.
MSG
  exit 1
fi

if [ -f "$OUT" ]; then
  if [ -n "${CNNDM_MD5:-}" ] && ! echo "$CNNDM_MD5  $OUT" | md5sum -c --status; then
    die "$OUT exists but its MD5 is not $CNNDM_MD5; delete it and run again"
  fi
  echo "cnndm: $OUT is already there"
  exit 0
fi
mkdir -p "$DIR"
tmp=$(mktemp "$DIR/.cnn_eval.json.XXXXXX")
trap 'rm -f "$tmp"' EXIT
if command -v curl >/dev/null; then
  curl -fL --retry 3 -o "$tmp" "$CNNDM_URL" || die "download of $CNNDM_URL failed"
elif command -v wget >/dev/null; then
  wget -q -O "$tmp" "$CNNDM_URL" || die "download of $CNNDM_URL failed"
else
  die "need curl or wget (apt-get install curl)"
fi
got=$(md5sum "$tmp" | cut -d' ' -f1)
if [ -n "${CNNDM_MD5:-}" ] && [ "$got" != "$CNNDM_MD5" ]; then
  die "checksum mismatch for $CNNDM_URL: MD5 $got, want $CNNDM_MD5; the download was deleted"
fi
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x bin/mlperf ]; then MLPERF=bin/mlperf; else MLPERF=mlperf; fi
fi
if command -v "$MLPERF" >/dev/null; then
  "$MLPERF" dataset verify cnndm --data "$tmp" ${CNNDM_ALLOW_PARTIAL:+--partial} || die "$CNNDM_URL is not a good cnn_eval.json; the download was deleted"
else
  echo "cnndm: no mlperf binary; the file's format was not checked (make build, then datasets/cnndm/verify_dataset.sh)" >&2
fi
mv "$tmp" "$OUT"
trap - EXIT
echo "cnndm: wrote $OUT (md5 $got)"
