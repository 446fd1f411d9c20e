#!/usr/bin/env python3
"""Turn C++ LoadGen log folders into .shape goldens for logshape_test.go.

usage: make_golden.py RUNS_DIR OUT_DIR [CASE ...]
RUNS_DIR/<case>/out/ holds the mlperf_log_{detail,summary,accuracy} files the
C++ LoadGen (6.0.17) wrote for each case of cases.txt (see README.md for the
SUT and how each case was run). A shape keeps what must match LoadGen
exactly -- the order of detail-log keys, their error/warning flags, the text
of string values, booleans, the summary's lines and the accuracy-log fields --
and replaces every number (digits, decimals, exponent) by N, since values
are compared elsewhere. With CASE names, only those cases are rendered.
The same rules are implemented in Go by logshape_test.go.
"""
import json
import os
import re
import sys

# Keys whose values depend on the build, the clock or the machine.
VOLATILE = {"loadgen_version", "loadgen_build_date_local", "loadgen_build_date_utc",
            "loadgen_git_commit_date", "loadgen_git_log_message",
            "loadgen_git_status_message", "loadgen_file_sha1", "test_datetime",
            "power_begin", "power_end", "qsl_name", "sut_name"}


def norm(s):
    return re.sub(r"[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?", "N", s)


def detail_shape(path):
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.startswith(":::MLLOG "):
            continue
        e = json.loads(line[len(":::MLLOG "):])
        k, v, md = e["key"], e["value"], e["metadata"]
        # LoadGen's own logger bookkeeping; depends on thread timing.
        if k == "warning_generic_message" and str(v).startswith("Logging allocation detected"):
            continue
        flags = ("E" if md.get("is_error") else "") + ("W" if md.get("is_warning") else "")
        s = k + (" [" + flags + "]" if flags else "")
        if k not in VOLATILE:
            if isinstance(v, bool):
                s += " = " + ("true" if v else "false")
            elif isinstance(v, str):
                s += " = " + json.dumps(norm(v))
        out.append(s)
    return out


def accuracy_shape(path, mode):
    entries = json.load(open(path, encoding="utf-8"))
    out = []
    if entries:
        out.append("fields " + " ".join(entries[0].keys()))
    if mode != "performance":
        out.append("entries %d" % len(entries))
    return out


def main():
    runs, dest, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    here = os.path.dirname(os.path.abspath(__file__))
    for line in open(os.path.join(here, "cases.txt")):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, mode = line.split()[:3]
        if only and name not in only:
            continue
        d = os.path.join(runs, name, "out")
        with open(os.path.join(dest, name + ".shape"), "w") as f:
            detail = detail_shape(os.path.join(d, "mlperf_log_detail.txt"))
            f.write("== detail\n")
            f.write("\n".join(detail) + "\n")
            f.write("== summary\n")
            # The warnings line counts LoadGen's logger-allocation warnings,
            # which depend on thread timing: recount without them.
            warns = sum(1 for l in detail if l.startswith("warning_generic_message") or "[W]" in l)
            for l in open(os.path.join(d, "mlperf_log_summary.txt"), encoding="utf-8"):
                l = l.rstrip("\n")
                if "warning encountered" in l or "warnings encountered" in l or l == "No warnings encountered during test.":
                    l = ("No warnings encountered during test." if warns == 0 else
                         "%d warning%s encountered. See detailed log." % (warns, "" if warns == 1 else "s"))
                f.write(norm(l) + "\n")
            f.write("== accuracy\n")
            f.write("".join(l + "\n" for l in accuracy_shape(os.path.join(d, "mlperf_log_accuracy.json"), mode)))


if __name__ == "__main__":
    main()
