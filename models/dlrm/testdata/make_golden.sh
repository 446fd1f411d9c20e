#!/usr/bin/env bash
# Regenerates the accuracy-dlrm.py goldens of score_test.go: make_logs.py
# writes the accuracy logs (pairs, and predictions only with a day-23 TSV
# and an aggregation trace), then the reference script scores them.
# Usage: make_golden.sh SCRIPT   (SCRIPT: accuracy-dlrm.py from
# mlcommons/inference recommendation/dlrm_v2/pytorch/tools; Debian's
# python3-numpy and python3-sklearn, at /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")"
SCRIPT=$1
/usr/bin/python3 make_logs.py
/usr/bin/python3 "$SCRIPT" --mlperf-accuracy-file log_pairs.json > golden_pairs.txt
/usr/bin/python3 "$SCRIPT" --mlperf-accuracy-file log_preds.json --day-23-file day_23_head.tsv --aggregation-trace-file trace_preds.txt > golden_preds.txt
