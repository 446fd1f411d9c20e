#!/usr/bin/env python3
"""Turn one LoadGen run of sut_main (trace + detail log) into the latency
series that loadgen's oracle test feeds to its own result computation.

Usage: make_series.py CASE_FILE RUN_DIR OUT.csv

Each row is one sample: seq (sample_seq), query (query_seq), sched_ns
(the query's scheduled time), done_ns (the sample's completion), first_ns
(its first token, 0 without token latencies) and n_tokens, times in ns from
LoadGen's start of issuing. The trace gives every time relative to its own
origin, to the ns ("ts" in us with 3 decimals). LoadGen does not trace its
start of issuing, so it is recovered as the first query's scheduled time:
exact for Server (the first query's scheduled delta is 0) and Offline
(the query is scheduled at the start); for SingleStream and MultiStream
LoadGen takes the start a few hundred ns before it issues the first query,
and only QPS and TPS with LoadGen overhead depend on that.
The token count of a sample is sut_main's 2 + (7*index) % 19. Every
latency the series implies is checked against the trace's complete_ns.
"""
import json
import re
import sys


def main():
    case, run, out = sys.argv[1:4]
    kv = {}
    for line in open(case):
        if line.strip() and not line.startswith("#"):
            k, v = line.split()[:2]
            kv[k] = v
    scenario = kv["scenario"]
    tokens = kv.get("use_token_latencies", "0") == "1"
    detail = {}
    for line in open(f"{run}/mlperf_log_detail.txt"):
        m = re.match(r':::MLLOG (.*)$', line)
        if m:
            e = json.loads(m.group(1))
            detail[e["key"]] = e["value"]
    # The trace is not strict JSON (some args are quoted twice): read the
    # one-event lines this script needs.
    trace = []
    for line in open(f"{run}/mlperf_log_trace.json"):
        if line.startswith('{"name":"Sample"') or line.startswith('{"name":"Token'):
            trace.append(json.loads(line.rstrip().rstrip(",")))

    def ns(ts):
        return round(ts * 1000)

    begin, end, tok, counters = {}, {}, {}, {}
    for ev in trace:
        name, ph = ev.get("name"), ev.get("ph")
        if name == "Sample" and ph == "b":
            begin[ev["id"]] = ev
        elif name == "Sample" and ph == "e":
            end[ev["id"]] = ns(ev["ts"])
        elif name == "Token" and ph == "b":
            tok[ev["id"]] = ev
        elif name == "Token_Latency" and ph == "C":
            t = ns(ev["ts"])
            assert t not in counters, "two queries scheduled at the same ns"
            counters[t] = ev["args"]
    seqs = sorted(begin)
    assert seqs == list(range(len(seqs))), "sample seq ids are not 0..n-1"
    rows = []
    for s in seqs:
        b = begin[s]
        a = b["args"]
        sched = ns(b["ts"])
        done = end[s]
        assert done - sched == a["complete_ns"], (s, done - sched, a["complete_ns"])
        first, n = 0, 0
        if tokens:
            n = 2 + (7 * a["sample_idx"]) % 19
            if scenario == "Server":
                c = counters[sched]
                first = sched + c["issue_delay"] + c["issue_to_done"]
            else:
                t = tok[s]
                assert ns(t["ts"]) == sched
                first = sched + t["args"]["complete_ns"]
        rows.append([s, a["query_seq"], sched, done, first, n])
    start = min(r[2] for r in rows)
    assert start == rows[0][2]
    with open(out, "w") as f:
        f.write("# LoadGen latency series from the trace of the run in this folder; see make_series.py\n")
        f.write("seq,query,sched_ns,done_ns,first_ns,n_tokens\n")
        for s, q, sched, done, first, n in rows:
            f.write(f"{s},{q},{sched - start},{done - start},{first - start if first else 0},{n}\n")


if __name__ == "__main__":
    main()
