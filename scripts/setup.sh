#!/usr/bin/env bash
# make setup: everything the project needs on a fresh Debian machine.
# Idempotent; each step checks before it installs.
set -euo pipefail
DEPS=${1:-.deps}
cd "$(dirname "$0")/.."
mkdir -p "$DEPS"

# Go modules (the build would fetch them too; doing it here keeps failures early and clear).
go mod download

# ONNX Runtime (CPU) from the onnxruntime-node npm package, sha256-checked.
bash scripts/install-onnxruntime.sh "$DEPS/onnxruntime"
