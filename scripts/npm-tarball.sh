#!/usr/bin/env bash
# npm-tarball.sh NAME PACKAGE VERSION SHA256 DIR: puts the npm tarball of
# PACKAGE@VERSION into DIR (a fresh temporary folder of the caller) and
# prints its path, after checking its sha256. NAME prefixes the messages.
#
# The tarball comes from $MLPERF_NPM_TARBALLS/<package>-<version>.tgz when
# that folder is set (an offline mirror: copies of the files `npm pack`
# writes), else from `npm pack --prefer-offline`, which reads npm's cache
# (~/.npm/_cacache) before the registry: once fetched, a package installs
# again without network. npm's own install scripts are never run (the
# onnxruntime-node one downloads from hosts these machines cannot reach).
# A tarball with another sha256 is deleted and is an error.
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: npm-tarball.sh NAME PACKAGE VERSION SHA256 DIR" >&2; exit 2; }
NAME=$1 PKG=$2 VERSION=$3 SHA256=$4 DIR=$5
die() { echo "$NAME: $*" >&2; exit 1; }
file=$PKG-$VERSION.tgz
if [ -n "${MLPERF_NPM_TARBALLS:-}" ]; then
  src=$MLPERF_NPM_TARBALLS/$file
  [ -f "$src" ] || die "$src not found (MLPERF_NPM_TARBALLS is set: put the file \`npm pack $PKG@$VERSION\` writes there, or unset it to use npm)"
  cp "$src" "$DIR/$file"
else
  command -v npm >/dev/null || die "npm not found; install it (apt-get install npm) and run make setup again, or set MLPERF_NPM_TARBALLS to a folder holding $file"
  if ! (cd "$DIR" && npm pack --prefer-offline --silent "$PKG@$VERSION" >/dev/null 2>"$DIR/npm.err"); then
    die "npm pack $PKG@$VERSION failed (no network and not in npm's cache?): $(tail -n 3 "$DIR/npm.err" | tr '\n' ' ')"
  fi
  [ -f "$DIR/$file" ] || die "npm pack $PKG@$VERSION wrote no $file"
fi
got=$(sha256sum "$DIR/$file" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  rm -f "$DIR/$file"
  die "checksum mismatch for $file: sha256 $got, want $SHA256; the tarball was deleted and nothing was installed"
fi
echo "$DIR/$file"
