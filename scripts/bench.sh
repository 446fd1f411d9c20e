#!/usr/bin/env bash
# make bench: the loadgen's figures beside the C++ LoadGen's (measured on
# this kind of 2-core machine, null SUT, trace off; shared/spec/loadgen.md),
# then every Go benchmark of the module.
set -euo pipefail
BIN=${1:-bin/mlperf}
OUT=${MLPERF_BENCH_OUT:-out/bench}
mkdir -p "$OUT"

echo "== loadgen (null SUT) vs C++ LoadGen 6.0.17"
go test -run '^$' -bench . -benchtime 3x ./loadgen/ | tee "$OUT/loadgen-bench.txt" | grep '^Benchmark' || true
awk '/^BenchmarkSingleStreamNullSUT/ {for(i=1;i<=NF;i++){if($(i+1)=="ns/query")ns=$i; if($(i+1)=="B/query")b=$i}; printf "SingleStream overhead: %s ns/query (C++ 166), %s B/query (C++ ~400)\n", ns, b}
     /^BenchmarkOffline1MSamples/ {for(i=1;i<=NF;i++){if($(i+1)=="ns/op")ns=$i}; printf "Offline 1M samples: %.3f s (C++ ~0.27 s)\n", ns/1e9}' "$OUT/loadgen-bench.txt"

echo
# The Server issuer beside the C++ LoadGen, built from a checkout of
# mlcommons/inference beside the repository (scripts/loadgen-vs-cpp.sh);
# without one, our figures alone at fixed rates.
if bash scripts/cpp-loadgen/build.sh > /dev/null 2>&1; then
  MLPERF_BENCH_OUT="$OUT/loadgen-vs-cpp" bash scripts/loadgen-vs-cpp.sh "$BIN"
else
  echo "== Server, null SUT, 2 s at each target QPS (no C++ LoadGen checkout found: see scripts/loadgen-vs-cpp.sh)"
  for qps in 100000 200000 400000 500000; do
    printf '*.*.min_duration = 2000\n*.*.min_query_count = 100\n*.Server.target_qps = %s\n' "$qps" > "$OUT/server.conf"
    "$BIN" loadgen --scenario Server --user-conf "$OUT/server.conf" --out "$OUT/server-$qps"
  done
fi

echo
echo "== all Go benchmarks"
go test -run '^$' -bench . -benchmem ./...
