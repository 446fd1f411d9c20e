#!/usr/bin/env python3
"""Write the issue order of one LoadGen run of sut_main (its trace) as CSV:
seq (sample_seq), query (query_seq), sample_idx.

Usage: issue_order.py RUN_DIR OUT.csv
"""
import json
import sys


def main():
    run, out = sys.argv[1:3]
    rows = {}
    for line in open(f"{run}/mlperf_log_trace.json"):
        if line.startswith('{"name":"Sample"') and '"ph":"b"' in line:
            a = json.loads(line.rstrip().rstrip(","))["args"]
            rows[a["sample_seq"]] = (a["query_seq"], a["sample_idx"])
    assert sorted(rows) == list(range(len(rows)))
    with open(out, "w") as f:
        f.write("seq,query,sample_idx\n")
        for s in range(len(rows)):
            f.write(f"{s},{rows[s][0]},{rows[s][1]}\n")


if __name__ == "__main__":
    main()
