#!/usr/bin/env bash
# Downloads SQuAD v1.1 dev-v1.1.json into DIR (default build/data) and checks
# its MD5 (3e85deb501d4e538b6bc56f786231552, MLCommons get-dataset-squad).
# Usage: download_dataset.sh [DIR]   (SQUAD_URL overrides the source, SQUAD_MD5
# the expected MD5, for a mirror of another file)
set -euo pipefail
DIR=${1:-build/data}
URL=${SQUAD_URL:-https://raw.githubusercontent.com/rajpurkar/SQuAD-explorer/master/dataset/dev-v1.1.json}
MD5=${SQUAD_MD5:-3e85deb501d4e538b6bc56f786231552}
OUT="$DIR/dev-v1.1.json"
mkdir -p "$DIR"
if [ -f "$OUT" ] && echo "$MD5  $OUT" | md5sum -c --status; then
  echo "squad: $OUT is already there (md5 ok)"
  exit 0
fi
tmp=$(mktemp "$DIR/.dev-v1.1.json.XXXXXX")
trap 'rm -f "$tmp"' EXIT
status=0
if command -v curl >/dev/null; then
  curl -fsSL --retry 3 -o "$tmp" "$URL" || status=$?
elif command -v wget >/dev/null; then
  wget -q -O "$tmp" "$URL" || status=$?
else
  echo "squad: need curl or wget (apt-get install curl)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "squad: could not download $URL (the downloader exited with status $status, its message above): check the network and proxy settings, or set SQUAD_URL to a mirror of dev-v1.1.json (and SQUAD_MD5 if it is another file)" >&2
  exit 1
fi
got=$(md5sum "$tmp" | cut -d' ' -f1)
if [ "$got" != "$MD5" ]; then
  echo "squad: md5 mismatch for $URL: got $got, want $MD5" >&2
  exit 1
fi
mv "$tmp" "$OUT"
trap - EXIT
echo "squad: wrote $OUT"
