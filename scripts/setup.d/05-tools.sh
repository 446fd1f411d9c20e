#!/usr/bin/env bash
# The command-line tools the benchmarks' shell scripts and their tests use:
# bash, md5sum and sha256sum (coreutils), and curl or wget for the
# download_*.sh scripts. Idempotent: installs curl (Debian) only when
# neither curl nor wget is there, running apt-get update only then.
set -euo pipefail
for c in md5sum sha256sum tar; do
  command -v "$c" >/dev/null 2>&1 || { echo "setup tools: $c not found: install coreutils/tar with your package manager" >&2; exit 1; }
done
if command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup tools: the download scripts need curl or wget: install one with your package manager" >&2
  exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup tools: run as root, or: apt-get install -y curl ca-certificates" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends curl ca-certificates
echo "installed curl"
