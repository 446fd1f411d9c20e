#!/usr/bin/env bash
# pacing-trade.sh: the Server issuer's CPU against its lag, for several
# gather spans (loadgen/pace.go's issueSlack) and early-wake windows
# (maxWindow), beside the C++ LoadGen, in one run: at fixed rates an
# issuer's CPU is its wake-ups, and gathering more queries per wake-up
# trades lag for CPU. Each variant is the project built from a copy of
# the working tree with those two constants changed (nothing here is
# committed or changed in place); the C++ LoadGen is built as
# scripts/loadgen-vs-cpp.sh builds it.
#
# Usage: scripts/pacing-trade.sh   (REPEAT runs per point, default 3)
# Prints, per variant and rate (20k, 100k QPS; 2 s runs; null SUT;
# resnet50 user.conf): the CPU-seconds and the p99 latency of each run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
REPEAT=${REPEAT:-3}
CPP=$(bash "$here/cpp-loadgen/build.sh")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# variant name, issueSlack ns, maxWindow ns
variants=("as-committed - -" "span40us 40_000 -" "span60us-window5us 60_000 5_000")
for v in "${variants[@]}"; do
	read -r name slack win <<< "$v"
	src=$work/src-$name
	mkdir -p "$src"
	(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$src")
	[ "$slack" = - ] || sed -i "s/^\tissueSlack = 20_000$/\tissueSlack = $slack/" "$src/loadgen/pace.go"
	[ "$win" = - ] || sed -i "s/^\tmaxWindow = 200_000$/\tmaxWindow = $win/" "$src/loadgen/pace.go"
	(cd "$src" && go build -o "$work/mlperf-$name" ./cmd/mlperf)
done
echo "load before: $(uptime)"
for q in 20000 100000; do
	d=$work/run-$q
	mkdir -p "$d"
	printf 'resnet50.Server.target_qps = %s\nresnet50.Server.target_latency = 10\nresnet50.Server.min_query_count = 100\nresnet50.Server.min_duration = 2000\n' "$q" > "$d/user.conf"
	for ((i = 1; i <= REPEAT; i++)); do
		for side in "${variants[@]%% *}" cpp; do
			rm -rf "$d/logs" && mkdir -p "$d/logs"
			if [ "$side" = cpp ]; then
				/usr/bin/time -f '%U %S' -o "$d/time" "$CPP/null_sut" "$d/user.conf" resnet50 Server "$d/logs" > /dev/null 2>&1 || true
			else
				/usr/bin/time -f '%U %S' -o "$d/time" "$work/mlperf-$side" loadgen --scenario Server --model-name resnet50 --user-conf "$d/user.conf" --out "$d/logs" > /dev/null 2>&1 || true
			fi
			printf '%-20s %6d QPS  CPU-s %s  p99 %s us\n' "$side" "$q" "$(awk '{printf "%.3f", $1 + $2}' "$d/time")" \
				"$(awk -F: '/^99.00 percentile latency/ {gsub(/ /, "", $2); printf "%.1f", $2 / 1000}' "$d/logs/mlperf_log_summary.txt")"
		done
	done
done
echo "load after: $(uptime)"
