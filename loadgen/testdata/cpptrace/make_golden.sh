#!/usr/bin/env bash
# Regenerates the .trace goldens from trace_harness.cc linked against the
# C++ LoadGen 6.0.17 (mlcommons/inference loadgen/; pass the harness
# binary as $1: scripts/cpp-loadgen/build.sh builds it as
# out/cpp-loadgen/trace_harness). Each golden: the args, the user.conf
# lines, the audit.config lines (AUDIT, one per line, if set), then the
# harness output.
set -e
H=$1
gen() { # name scenario mode total perf conf...
	name=$1 sc=$2 mode=$3 total=$4 perf=$5; shift 5
	d=$(mktemp -d)
	printf '%s\n' "$@" > "$d/user.conf"
	audit=()
	if [ -n "${AUDIT:-}" ]; then
		printf '%s\n' "$AUDIT" > "$d/audit.config"
		audit=("$d/audit.config")
	fi
	{
		echo "# args: $sc $mode $total $perf"
		for l in "$@"; do echo "# conf: $l"; done
		if [ -n "${AUDIT:-}" ]; then printf '%s\n' "$AUDIT" | sed 's/^/# audit: /'; fi
		"$H" "$sc" "$mode" "$total" "$perf" "$d/user.conf" "$d" "${audit[@]}"
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

# audit.config options (StartTest applies them with model "*" over the
# user.conf), each as the compliance tests use them or at a bound.
AUDIT='*.*.performance_issue_unique = 1' gen audit_unique_singlestream_250 SingleStream performance 400 400 '*.*.min_duration = 0' '*.*.min_query_count = 250'
AUDIT='*.*.performance_issue_unique = 1' gen audit_unique_singlestream_1000 SingleStream performance 400 400 '*.*.min_duration = 0' '*.*.min_query_count = 1000'
AUDIT='*.*.performance_issue_unique = 1' gen audit_unique_server Server performance 400 400 '*.*.min_duration = 0' '*.*.min_query_count = 250' '*.Server.target_qps = 100000'
AUDIT='*.*.performance_issue_unique = 1' gen audit_unique_multistream MultiStream performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 100' '*.MultiStream.samples_per_query = 4'
AUDIT='*.*.performance_issue_unique = 1' gen audit_unique_offline Offline performance 64 64 '*.*.min_duration = 0'
TEST04=$'*.*.mode = 2\n*.*.performance_issue_unique = 0\n*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 3'
AUDIT=$TEST04 gen audit_same_singlestream SingleStream performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 50'
AUDIT=$TEST04 gen audit_same_multistream MultiStream performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 20' '*.MultiStream.samples_per_query = 4'
AUDIT=$TEST04 gen audit_same_server Server performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 50' '*.Server.target_qps = 100000'
AUDIT=$TEST04 gen audit_same_offline Offline performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 100'
AUDIT=$'*.*.performance_issue_unique = 1\n*.*.performance_issue_same = 1' gen audit_unique_and_same SingleStream performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 64'
TEST01=$'*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = '
AUDIT="${TEST01}20" gen audit_test01_singlestream SingleStream performance 1024 256 '*.*.min_duration = 0' '*.*.min_query_count = 200'
AUDIT="${TEST01}30" gen audit_test01_server Server performance 1024 256 '*.*.min_duration = 0' '*.*.min_query_count = 300' '*.Server.target_qps = 100000'
AUDIT="${TEST01}64" gen audit_test01_offline Offline performance 1024 256 '*.*.min_duration = 0' '*.*.min_query_count = 500'
AUDIT=$'*.*.min_query_count = 40\n*.*.max_query_count = 30\n*.*.performance_sample_count_override = 16' gen audit_counts_singlestream SingleStream performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 100'
AUDIT=$'*.*.sample_concatenate_permutation = 1' gen audit_equal_issue_singlestream SingleStream performance 10 10 '*.*.min_duration = 0' '*.*.min_query_count = 35'
AUDIT=$'*.Server.coalesce_queries = 1' gen audit_coalesce_server Server performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 20' '*.Server.target_qps = 10000000000'
AUDIT=$'*.Server.target_qps = 50000\n*.Server.target_latency = 5' gen audit_server_qps Server performance 64 64 '*.*.min_duration = 0' '*.*.min_query_count = 100' '*.Server.target_qps = 1000'
