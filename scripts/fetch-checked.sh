#!/usr/bin/env bash
# fetch-checked.sh NAME URL OUT [MD5]: downloads URL to the file OUT and
# checks its MD5, as every download_model.sh does. NAME prefixes the
# messages (e.g. download_model). A file already at OUT with that MD5 is
# kept; one with another MD5 is an error. The download goes to a temporary
# name and is moved into place only when it matches, so nothing partial is
# ever left under OUT. An empty MD5 (none is published) accepts the file
# and prints its MD5.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: fetch-checked.sh NAME URL OUT [MD5]" >&2; exit 2; }
NAME=$1 URL=$2 OUT=$3 MD5=${4:-}

die() { echo "$NAME: $*" >&2; exit 1; }
command -v md5sum >/dev/null || die "md5sum not found; install coreutils"
md5_of() { md5sum "$1" | cut -d' ' -f1; }

if [ -f "$OUT" ]; then
  if [ -z "$MD5" ] || [ "$(md5_of "$OUT")" = "$MD5" ]; then
    echo "$NAME: $OUT already present${MD5:+, MD5 $MD5 OK}"
    exit 0
  fi
  die "$OUT exists but its MD5 is not $MD5; delete it and run again"
fi

mkdir -p "$(dirname "$OUT")"
PART=$OUT.part.$$
trap 'rm -f "$PART"' EXIT
echo "$NAME: ${URL%%\?*} -> $OUT"
if command -v curl >/dev/null; then
  curl -fL --retry 3 -o "$PART" "$URL" || die "download of ${URL%%\?*} failed"
elif command -v wget >/dev/null; then
  wget -q -O "$PART" "$URL" || die "download of ${URL%%\?*} failed"
else
  die "neither curl nor wget found; install one (apt-get install curl)"
fi
got=$(md5_of "$PART")
if [ -z "$MD5" ]; then
  echo "$NAME: no MD5 is published for ${OUT##*/}; this download's MD5 is $got"
elif [ "$got" != "$MD5" ]; then
  die "checksum mismatch for ${URL%%\?*}: MD5 $got, want $MD5; the file was deleted"
fi
mv "$PART" "$OUT"
trap - EXIT
echo "$NAME: $OUT OK${MD5:+ (MD5 $MD5)}"
