#!/usr/bin/env bash
# libjpeg-turbo headers and library for preprocess/libjpeg (cgo): the JPEG
# decoder the MLPerf reference uses through cv2.imread, plus the C compiler
# cgo needs. Idempotent: installs only the Debian packages that are missing,
# running apt-get update only then.
set -euo pipefail
PKGS=(libjpeg62-turbo-dev gcc libc6-dev)

missing=()
if command -v dpkg >/dev/null 2>&1; then
  for p in "${PKGS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
fi
[ ${#missing[@]} -eq 0 ] && command -v dpkg >/dev/null 2>&1 && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  if [ -f /usr/include/jpeglib.h ] || [ -f /usr/local/include/jpeglib.h ]; then
    exit 0 # not Debian, but the headers are there
  fi
  echo "setup libjpeg-turbo: install the libjpeg-turbo development files (jpeglib.h, libjpeg.so) and a C compiler with your package manager, or build with CGO_ENABLED=0 (then JPEG decoding is unavailable)" >&2
  exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup libjpeg-turbo: run as root, or: apt-get install -y ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "installed ${missing[*]}"
