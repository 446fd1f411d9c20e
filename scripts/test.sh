#!/usr/bin/env bash
# make test: every test with the race detector. The full output goes to
# out/test.log; the terminal gets each package's result, each failed test,
# each skipped test with its reason, and the skip count
# (cmd/testreport). Exits with go test's status.
# Usage: scripts/test.sh [go test flags...]
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
mkdir -p out
$GO build -o out/testreport ./cmd/testreport || exit 1
# A soft heap limit per test binary: the decoder tests allocate large
# logits ([batch, positions, vocabulary]) step after step, and under the
# race detector the garbage grew the cmd/mlperf binary past 20 GB beside
# other packages' tests on a 24 GB machine before the collector caught up.
# The limit makes it collect sooner; it does not fail a test that needs more.
export GOMEMLIMIT=${GOMEMLIMIT:-6GiB}
# -timeout: the race detector makes the decoder end-to-end tests slow on 2 cores;
# the default 10 minutes per package is too close.
$GO test -race -count=1 -timeout 30m -json "$@" ./... | out/testreport out/test.log
rc=${PIPESTATUS[0]}
echo "full output: out/test.log"
exit "$rc"
