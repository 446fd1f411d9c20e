#!/usr/bin/env bash
# The language toolchains the code sandbox (sandbox/) runs model-written
# programs with: the MBXP scorer of Mixtral-8x7B (accuracy/mbxp), which, as
# the reference's evaluate_mbxp.py, scores C++, Python, PHP, JavaScript,
# Ruby and TypeScript. DEPS is the first argument (default .deps).
#
#   Debian packages, only those missing: python3, g++, php-cli, ruby;
#   nodejs when no `node` is installed (a NodeSource node is kept); and
#   golang-go only when no `go` is on PATH (the Go that builds this project
#   is the sandbox's Go otherwise).
#   npm, checked by sha256, into DEPS/node_modules: typescript 5.4.5 (tsc,
#   the release current when the reference's Dockerfile.eval ran `npm
#   install -g typescript`) and lodash 4.17.21 (MBXP's JavaScript tests
#   require it).
#
# Idempotent: installs only what is missing, running apt-get update only
# then. MLPERF_SKIP_TOOLCHAINS=1 skips this step; a language whose
# toolchain is missing is then scored as failed, with a warning naming the
# package to install.
set -euo pipefail
DEPS=${1:-.deps}
[ "${MLPERF_SKIP_TOOLCHAINS:-0}" = 1 ] && exit 0

missing=()
need_pkg() { # command package
  command -v "$1" >/dev/null 2>&1 || missing+=("$2")
}
need_pkg python3 python3
need_pkg g++ g++
need_pkg php php-cli
need_pkg ruby ruby
need_pkg node nodejs
need_pkg npm npm
need_pkg go golang-go
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup toolchains: install ${missing[*]} with your package manager (the MBXP scorer counts a language without its toolchain as failed)" >&2
    exit 1
  fi
  SUDO=
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup toolchains: run as root, or: apt-get install -y ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  echo "setup toolchains: installed ${missing[*]}"
fi

# name version sha256-of-tarball: unpacked into DEPS/node_modules/name.
install_npm() {
  local name=$1 ver=$2 sha=$3 dest=$DEPS/node_modules/$1
  if [ -f "$dest/package.json" ] && grep -q "\"version\": \"$ver\"" "$dest/package.json"; then
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$name@$ver" >/dev/null)
  if ! echo "$sha  $tmp/$name-$ver.tgz" | sha256sum -c --status; then
    echo "setup toolchains: checksum mismatch for $name@$ver: got $(sha256sum "$tmp/$name-$ver.tgz" | cut -d' ' -f1), want $sha" >&2
    rm -rf "$tmp"
    exit 1
  fi
  tar -xzf "$tmp/$name-$ver.tgz" -C "$tmp"
  mkdir -p "$DEPS/node_modules"
  rm -rf "$dest"
  mv "$tmp/package" "$dest"
  chmod -R a+rX "$dest"
  rm -rf "$tmp"
  echo "setup toolchains: installed $name@$ver in $dest"
}
install_npm typescript 5.4.5 154fae77169f04155ac52d521ac59abb07c9be29ea3744732adbf9f14abb2440
install_npm lodash 4.17.21 6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804
