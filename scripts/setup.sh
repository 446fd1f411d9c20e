#!/usr/bin/env bash
# make setup: everything the project needs on a fresh Debian machine.
# Runs every scripts/setup.d/*.sh in name order with the deps folder as its
# argument. Each step is idempotent: it checks before it installs.
set -euo pipefail
DEPS=${1:-.deps}
cd "$(dirname "$0")/.."
mkdir -p "$DEPS"
DEPS=$(cd "$DEPS" && pwd)
for step in scripts/setup.d/*.sh; do
  bash "$step" "$DEPS"
done
