#!/usr/bin/env bash
# make bench: Go benchmarks, then the mlperf CLI figures.
set -euo pipefail
BIN=${1:-bin/mlperf}
go test -run '^$' -bench . -benchmem ./...
