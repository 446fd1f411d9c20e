#!/usr/bin/env bash
# Downloads an MLCommons R2-hosted data set or model the way the MLCommons
# R2 Downloader (github.com/mlcommons/r2-downloader, mlc-r2-downloader.sh)
# does, and verifies every file against the MD5 list published beside it:
#
#   METADATA_URL            .../metadata/NAME.uri (or .url): its body is the
#                           base URL of the files
#   .../metadata/NAME.md5   "MD5  relative/path" per file
#
# Each file is fetched to a temporary name and moved into place only when
# its MD5 matches; a mismatch deletes it and fails. Files already present
# with the right MD5 are kept.
#
# Usage: mlc-r2-download.sh [-d DIR] METADATA_URL
#   -d  destination folder (default: NAME)
# Environment:
#   MLC_R2_TOKEN     a Cloudflare Access token for the bucket (sent as the
#                    cf-access-token header). Without it, cloudflared (if
#                    installed) logs in through the browser as the
#                    reference downloader does; MLC_R2_NO_LOGIN=1 skips that.
set -euo pipefail

die() { echo "mlc-r2-download: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

DIR=
while getopts "d:h" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
URL=$1
case $URL in
  http://*|https://*) ;;
  *) die "$URL is not an http(s) URL" ;;
esac
file=${URL##*/}
case $file in
  *.uri|*.url) NAME=${file%.*} ;;
  *) die "$URL does not name a metadata file (NAME.uri or NAME.url)" ;;
esac
[ -n "$NAME" ] || die "no data set name in $URL"
MD5_URL=${URL%/*}/$NAME.md5
DIR=${DIR:-$NAME}

command -v md5sum >/dev/null || die "md5sum not found; install coreutils"
if command -v curl >/dev/null; then
  get() { curl -fsSL --retry 3 ${TOKEN:+-H "cf-access-token: $TOKEN"} -o "$2" "$1"; }
elif command -v wget >/dev/null; then
  get() { wget -q ${TOKEN:+--header="cf-access-token: $TOKEN"} -O "$2" "$1"; }
else
  die "neither curl nor wget found; install one (apt-get install curl)"
fi

TOKEN=${MLC_R2_TOKEN:-}
if [ -z "$TOKEN" ] && [ -z "${MLC_R2_NO_LOGIN:-}" ] && command -v cloudflared >/dev/null; then
  echo "mlc-r2-download: logging in to Cloudflare Access for $URL (a browser window opens)"
  cloudflared access login "$URL" >/dev/null 2>&1 || die "Cloudflare Access login failed"
  TOKEN=$(cloudflared access token --app="$URL") || die "no Cloudflare Access token"
fi

mkdir -p "$DIR"
PART=
trap 'if [ -n "$PART" ]; then rm -f "$PART"; fi' EXIT

meta=$(mktemp "$DIR/.$NAME.uri.XXXXXX")
PART=$meta
get "$URL" "$meta" || die "could not read $URL (an MLCommons-approved login may be needed: set MLC_R2_TOKEN or install cloudflared)"
BASE=$(tr -d ' \t\r\n' <"$meta")
rm -f "$meta"
case $BASE in
  http://*|https://*) ;;
  *) die "$URL does not hold a base URL (got '$BASE')" ;;
esac
BASE=${BASE%/}

list=$(mktemp "$DIR/.$NAME.md5.XXXXXX")
PART=$list
get "$MD5_URL" "$list" || die "could not read the checksum list $MD5_URL"
mv "$list" "$DIR/$NAME.md5"
PART=

n=0
while read -r md5 path; do
  [ -n "${md5:-}" ] || continue
  [[ $md5 =~ ^[0-9a-f]{32}$ ]] || die "$MD5_URL: bad line '$md5 $path'"
  path=${path#\*}
  path=${path#./}
  case $path in
    ""|/*|..|../*|*/../*|*/..) die "$MD5_URL: unsafe path '$path'" ;;
  esac
  out=$DIR/$path
  if [ -f "$out" ] && [ "$(md5sum "$out" | cut -d' ' -f1)" = "$md5" ]; then
    echo "mlc-r2-download: $out already present, MD5 $md5 OK"
    n=$((n + 1))
    continue
  fi
  mkdir -p "$(dirname "$out")"
  PART=$out.part.$$
  echo "mlc-r2-download: $BASE/$path -> $out"
  get "$BASE/$path" "$PART" || die "download of $BASE/$path failed"
  got=$(md5sum "$PART" | cut -d' ' -f1)
  if [ "$got" != "$md5" ]; then
    die "checksum mismatch for $path: MD5 $got, want $md5; the file was deleted"
  fi
  mv "$PART" "$out"
  PART=
  echo "mlc-r2-download: $out OK (MD5 $md5)"
  n=$((n + 1))
done <"$DIR/$NAME.md5"
[ "$n" -gt 0 ] || die "$MD5_URL lists no files"
echo "mlc-r2-download: $n file(s) in $DIR verified against $NAME.md5"
