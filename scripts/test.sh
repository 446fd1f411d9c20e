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
# cmd/mlperf runs without the race detector: its tests are end-to-end
# runs of the CLI (in process and in child processes) over library code
# that its own packages race-test; race-built, that one test binary grew
# past 22 GB and was OOM-killed on a 24 GB machine.
others=$($GO list ./... | grep -v '/cmd/mlperf$')
{
	$GO test -race -count=1 -timeout 30m -json "$@" $others
	echo "race=$?" >out/test.rc
	$GO test -count=1 -timeout 30m -json "$@" ./cmd/mlperf
	echo "cli=$?" >>out/test.rc
} | out/testreport out/test.log
report=$?
rc=$(awk -F= '$2 != 0 {bad = $2} END {print bad + 0}' out/test.rc)
[ "$report" = 0 ] || [ "$rc" != 0 ] || rc=1
echo "full output: out/test.log"
exit "$rc"
