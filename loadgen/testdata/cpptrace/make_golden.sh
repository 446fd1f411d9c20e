#!/bin/sh
# Regenerates the .trace goldens from trace_harness.cc linked against the
# C++ LoadGen 6.0.17 (mlcommons/inference loadgen/, built separately; pass
# the harness binary as $1). Each golden: the args, the user.conf lines,
# then the harness output.
set -e
H=$1
gen() { # name scenario mode total perf conf...
	name=$1 sc=$2 mode=$3 total=$4 perf=$5; shift 5
	d=$(mktemp -d)
	printf '%s\n' "$@" > "$d/user.conf"
	{
		echo "# args: $sc $mode $total $perf"
		for l in "$@"; do echo "# conf: $l"; done
		"$H" "$sc" "$mode" "$total" "$perf" "$d/user.conf" "$d"
	} > "$name.trace"
	rm -r "$d"
}
gen offline_accuracy_100_32 Offline accuracy 100 32 '*.*.min_duration = 0'
gen offline_accuracy_64_64 Offline accuracy 64 64 '*.*.min_duration = 0'
gen offline_accuracy_1000_64 Offline accuracy 1000 64 '*.*.min_duration = 0'
gen singlestream_accuracy_100_32 SingleStream accuracy 100 32 '*.*.min_duration = 0'
gen server_accuracy_50_16 Server accuracy 50 16 '*.*.min_duration = 0'
gen multistream_accuracy_50_16 MultiStream accuracy 50 16 '*.*.min_duration = 0' '*.MultiStream.samples_per_query = 4'
gen singlestream_equal_issue_16 SingleStream performance 64 16 '*.*.min_duration = 0' '*.*.min_query_count = 70' '*.*.sample_concatenate_permutation = 1'
gen singlestream_equal_issue_10 SingleStream performance 10 10 '*.*.min_duration = 0' '*.*.min_query_count = 35' '*.*.sample_concatenate_permutation = 1'
gen server_equal_issue_10 Server performance 10 10 '*.*.min_duration = 0' '*.*.min_query_count = 35' '*.*.sample_concatenate_permutation = 1' '*.Server.target_qps = 100000'
gen offline_equal_issue_10 Offline performance 10 10 '*.*.min_duration = 0' '*.*.min_query_count = 35' '*.*.sample_concatenate_permutation = 1'
