#!/usr/bin/env bash
# ollama v0.6.5, a real OpenAI-compatible serving engine, for the remote-SUT
# tests (remote/openai drives it with a tiny GGUF the project writes).
# Built from its Go module (cgo, vendored llama.cpp; about 2 minutes on 2
# cores) into DEPS/ollama. Idempotent: skipped when that version is there.
# Set MLPERF_SKIP_OLLAMA=1 to skip it; the real-engine test then skips with
# a message.
set -euo pipefail
DEPS=$1
VERSION=v0.6.5
BIN="$DEPS/ollama/ollama"
[ "${MLPERF_SKIP_OLLAMA:-0}" = 1 ] && exit 0
if [ -x "$BIN" ] && go version -m "$BIN" 2>/dev/null | grep -q "mod[[:space:]]*github.com/ollama/ollama[[:space:]]*$VERSION"; then
  exit 0
fi
mkdir -p "$DEPS/ollama"
echo "setup: building ollama $VERSION into $DEPS/ollama (about 2 minutes)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && GOFLAGS=-mod=mod GOBIN="$DEPS/ollama" go install "github.com/ollama/ollama@$VERSION" >"$tmp/log" 2>&1); then
  tail -20 "$tmp/log" >&2
  echo "setup: building ollama failed; the real-engine test will skip (set MLPERF_SKIP_OLLAMA=1 to silence this step)" >&2
  exit 0
fi
echo "installed ollama $VERSION in $DEPS/ollama"
