#!/usr/bin/env bash
# loadgen-vs-cpp.sh: the Go loadgen beside the C++ LoadGen 6.0.17 in one
# run, on the same machine, with the same user.conf (model key resnet50,
# Server, p99 bound 10 ms, short runs) and a null SUT that completes every
# sample inside IssueQuery on both sides (`mlperf loadgen --sut null`,
# scripts/cpp-loadgen/null_sut.cc; trace off on both). Prints, quiet and
# with a CPU hog pinned to core 0 (`taskset -c 0 yes`):
#   max VALID   the highest target QPS whose run is VALID (doubling from
#               25k, or halving from it down to 1000 on a busy machine,
#               then bisecting to within 10 %; an INVALID probe counts
#               only when its retry fails too)
#   CPU-s       user+system CPU seconds of the whole process per run at
#               20k and 100k QPS (median of REPEAT runs) and at max VALID
#   sleeps/q    clock_nanosleep calls per query at 20k and 100k QPS (one
#               more run each, counted by perf; - without perf)
#   lag p99     the 99th percentile latency at 20k and 100k QPS in µs:
#               with a SUT that completes inside IssueQuery that is the
#               issue lag (scheduled time to IssueQuery) plus the
#               completion call, the same on both sides
# The C++ LoadGen is built by scripts/cpp-loadgen/build.sh from a checkout
# of mlcommons/inference beside the repository (MLPERF_LOADGEN_SRC names
# its loadgen/ folder otherwise); nothing is fetched and nothing built is
# committed (out/ is ignored).
#
# Usage: scripts/loadgen-vs-cpp.sh [MLPERF_BIN]
# Environment: LOADGEN_VS_CPP_MS run length in ms (default 2000),
#   REPEAT runs per fixed-rate point (default 3), CONDITIONS (default
#   "quiet hog"), SIDES (default "go cpp"), MAX_QPS search ceiling
#   (default 16000000), MLPERF_BENCH_OUT (default out/loadgen-vs-cpp).
# Figures from a machine others are using are noise: the script prints
# the load average before and after. A full run takes about 10 minutes
# on a quiet 2-core machine (most of it generating the schedules of the
# highest probes on both sides).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BIN=${1:-$repo/bin/mlperf}
OUT=${MLPERF_BENCH_OUT:-$repo/out/loadgen-vs-cpp}
DUR_MS=${LOADGEN_VS_CPP_MS:-2000}
REPEAT=${REPEAT:-3}
CONDITIONS=${CONDITIONS:-quiet hog}
SIDES=${SIDES:-go cpp}
MAX_QPS=${MAX_QPS:-16000000}

if [ ! -x "$BIN" ]; then
	(cd "$repo" && go build -o "$BIN" ./cmd/mlperf)
fi
CPP=$(bash "$here/cpp-loadgen/build.sh")
mkdir -p "$OUT"

hog=
stop_hog() {
	if [ -n "$hog" ]; then
		kill "$hog" 2>/dev/null || true
		wait "$hog" 2>/dev/null || true
		hog=
	fi
}
trap stop_hog EXIT

# probe SIDE QPS DIR: one run; prints "VALID|INVALID cpu_s p99_ns queries".
probe() {
	local side=$1 qps=$2 d=$3
	rm -rf "$d"
	mkdir -p "$d/logs"
	printf 'resnet50.Server.target_qps = %s\nresnet50.Server.target_latency = 10\nresnet50.Server.min_query_count = 100\nresnet50.Server.min_duration = %s\n' \
		"$qps" "$DUR_MS" > "$d/user.conf"
	local TIMEFORMAT='%U %S'
	case $side in
	go) { time "$BIN" loadgen --scenario Server --model-name resnet50 --user-conf "$d/user.conf" --out "$d/logs" > "$d/stdout" 2> "$d/stderr"; } 2> "$d/time" || true ;;
	cpp) { time "$CPP/null_sut" "$d/user.conf" resnet50 Server "$d/logs" > "$d/stdout" 2> "$d/stderr"; } 2> "$d/time" || true ;;
	esac
	local s=$d/logs/mlperf_log_summary.txt
	if [ ! -s "$s" ]; then
		echo "INVALID 0 0 0"
		return
	fi
	local valid cpu p99 n
	valid=$(sed -n 's/^Result is : //p' "$s")
	cpu=$(awk '{printf "%.3f", $1 + $2}' "$d/time")
	p99=$(awk -F: '/^99.00 percentile latency/ {gsub(/ /, "", $2); print $2}' "$s")
	n=$(grep -o '"key": "result_query_count", "value": [0-9]*' "$d/logs/mlperf_log_detail.txt" | grep -o '[0-9]*$' || echo 0)
	echo "${valid:-INVALID} $cpu ${p99:-0} ${n:-0}"
}

# sleeps SIDE QPS DIR: one more run, counting the process's
# clock_nanosleep calls (both sides sleep with it) with perf; prints
# sleeps per query, or - where perf or its syscall tracepoints are not
# available. Every sleep costs a wake-up (two context switches and a
# timer interrupt), the bulk of an issuer's CPU at fixed rates.
sleeps() {
	local side=$1 qps=$2 d=$3 n s
	command -v perf > /dev/null || { echo -; return; }
	rm -rf "$d"
	mkdir -p "$d/logs"
	printf 'resnet50.Server.target_qps = %s\nresnet50.Server.target_latency = 10\nresnet50.Server.min_query_count = 100\nresnet50.Server.min_duration = %s\n' \
		"$qps" "$DUR_MS" > "$d/user.conf"
	local cmd
	case $side in
	go) cmd=("$BIN" loadgen --scenario Server --model-name resnet50 --user-conf "$d/user.conf" --out "$d/logs") ;;
	cpp) cmd=("$CPP/null_sut" "$d/user.conf" resnet50 Server "$d/logs") ;;
	esac
	perf stat -x, -o "$d/perf" -e syscalls:sys_enter_clock_nanosleep -- "${cmd[@]}" > /dev/null 2>&1 || { echo -; return; }
	s=$(awk -F, '/clock_nanosleep/ {print $1}' "$d/perf")
	n=$(grep -o '"key": "result_query_count", "value": [0-9]*' "$d/logs/mlperf_log_detail.txt" 2> /dev/null | grep -o '[0-9]*$' || echo 0)
	case $s in '' | *[!0-9]*) echo -; return ;; esac
	awk -v s="$s" -v n="${n:-0}" 'BEGIN {if (n > 0) printf "%.2f", s / n; else print "-"}'
}

# median of the numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {print (NR ? v[int((NR + 1) / 2)] : 0)}'; }

# fixed SIDE QPS DIR: REPEAT runs; prints "cpu_s p99_us valid_runs".
fixed() {
	local side=$1 qps=$2 d=$3 i r cpus="" p99s="" ok=0
	for ((i = 1; i <= REPEAT; i++)); do
		r=$(probe "$side" "$qps" "$d/$i")
		read -r v c p _ <<< "$r"
		cpus+="$c"$'\n' p99s+="$p"$'\n'
		[ "$v" = VALID ] && ok=$((ok + 1))
	done
	printf '%s %s %s\n' "$(printf '%s' "$cpus" | median)" "$(printf '%s' "$p99s" | median | awk '{printf "%.1f", $1 / 1000}')" "$ok/$REPEAT"
}

# maxvalid SIDE DIR: prints "qps cpu_s queries".
maxvalid() {
	local side=$1 d=$2 lo=0 hi=0 q best="0 0 0" r v c n
	try() { # retries an INVALID probe once
		r=$(probe "$side" "$1" "$d/$1")
		read -r v _ <<< "$r"
		[ "$v" = VALID ] || r=$(probe "$side" "$1" "$d/$1")
		echo "$r"
	}
	for ((q = 25000; q <= MAX_QPS; q *= 2)); do
		r=$(try "$q")
		read -r v c _ n <<< "$r"
		if [ "$v" != VALID ]; then hi=$q; break; fi
		lo=$q best="$q $c $n"
	done
	# A machine too busy for 25k: halve down to 1000 before giving up.
	while [ "$lo" -eq 0 ] && [ "$hi" -gt 1000 ]; do
		q=$((hi / 2))
		r=$(try "$q")
		read -r v c _ n <<< "$r"
		if [ "$v" = VALID ]; then lo=$q best="$q $c $n"; else hi=$q; fi
	done
	if [ "$lo" -gt 0 ] && [ "$hi" -gt 0 ]; then
		while awk -v l="$lo" -v h="$hi" 'BEGIN {exit !(h / l > 1.1)}'; do
			q=$(awk -v l="$lo" -v h="$hi" 'BEGIN {printf "%d", int(sqrt(l * h) / 1000 + 0.5) * 1000}')
			r=$(try "$q")
			read -r v c _ n <<< "$r"
			if [ "$v" = VALID ]; then lo=$q best="$q $c $n"; else hi=$q; fi
		done
	fi
	echo "$best"
}

echo "== Go loadgen vs C++ LoadGen $(tr -d ' \n' < "$CPP/src/VERSION.txt"), Server, null SUT, resnet50 user.conf, ${DUR_MS} ms runs"
echo "load before: $(uptime)"
declare -A res
for cond in $CONDITIONS; do
	if [ "$cond" = hog ]; then
		if ! command -v taskset > /dev/null; then
			echo "no taskset (util-linux): skipping the hog condition" >&2
			continue
		fi
		taskset -c 0 yes > /dev/null &
		hog=$!
	fi
	for side in $SIDES; do
		read -r c20 l20 ok20 <<< "$(fixed "$side" 20000 "$OUT/$cond/$side/20k")"
		read -r c100 l100 ok100 <<< "$(fixed "$side" 100000 "$OUT/$cond/$side/100k")"
		read -r mq mc mn <<< "$(maxvalid "$side" "$OUT/$cond/$side/max")"
		w20=$(sleeps "$side" 20000 "$OUT/$cond/$side/sleeps20k")
		w100=$(sleeps "$side" 100000 "$OUT/$cond/$side/sleeps100k")
		res[$cond.$side]="$mq $mc $mn $c20 $c100 $l20 $l100 $ok20 $ok100 $w20 $w100"
		echo "  done: $cond $side" >&2
	done
	stop_hog
done
echo "load after:  $(uptime)"
echo
printf '%-6s %-4s %12s %10s %10s %10s %12s %12s %13s %13s %17s\n' cond side "max VALID" "CPU-s@20k" "CPU-s@100k" "CPU-s@max" "us/q@max" "lag p99@20k" "lag p99@100k" "VALID 20k/100k" "sleeps/q 20k/100k"
for cond in $CONDITIONS; do
	for side in $SIDES; do
		[ -n "${res[$cond.$side]:-}" ] || continue
		read -r mq mc mn c20 c100 l20 l100 ok20 ok100 w20 w100 <<< "${res[$cond.$side]}"
		printf '%-6s %-4s %12s %10s %10s %10s %12s %12s %13s %13s %17s\n' "$cond" "$side" "$mq" "$c20" "$c100" "$mc" \
			"$(awk -v c="$mc" -v n="$mn" 'BEGIN {printf "%.2f", n ? c * 1e6 / n : 0}')" "${l20}us" "${l100}us" "$ok20 $ok100" "$w20 $w100"
	done
	if [ -n "${res[$cond.go]:-}" ] && [ -n "${res[$cond.cpp]:-}" ]; then
		read -r gq gc gn g20 g100 _ <<< "${res[$cond.go]}"
		read -r cq cc cn c20 c100 _ <<< "${res[$cond.cpp]}"
		awk -v gq="$gq" -v cq="$cq" -v g20="$g20" -v c20="$c20" -v g100="$g100" -v c100="$c100" -v gc="$gc" -v gn="$gn" -v cc="$cc" -v cn="$cn" -v cond="$cond" 'BEGIN {
			printf "%-6s Go/C++: max VALID %.2fx (goal >= 3), CPU per query at 20k %.2fx, at 100k %.2fx, at each max %.2fx (goal <= 1)\n", cond,
				cq ? gq / cq : 0, c20 ? g20 / c20 : 0, c100 ? g100 / c100 : 0, (cc && gn && cn) ? (gc / gn) / (cc / cn) : 0 }'
	fi
done
echo "(lag p99 goal: < 50 us up to 100k QPS quiet; logs in $OUT)"
