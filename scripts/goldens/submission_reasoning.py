#!/usr/bin/env python3
"""The v6.1 tree of deepseek-r1 and gpt-oss-120b, judged by the MLCommons checker.

usage: /usr/bin/python3 scripts/goldens/submission_reasoning.py SUBMISSION_DIR

Run from the repository root. SUBMISSION_DIR is mlcommons/inference's
tools/submission folder (Debian's python3 with python3-numpy,
python3-pandas and python3-yaml). This writes the tree of cmd/mlperf's
TestSubmissionReasoningV61AgreesWithTheMLCommonsChecker (`go test
./cmd/mlperf -reasoning-tree-dump DIR`: `mlperf submission --round v6.1`
of gpt-oss-120b against a fake SGLang engine and of deepseek-r1 against a
fake chat engine, Offline, Server and Interactive with their compliance
tests, 100 ms runs), runs the checker on it (--version v6.1) and records in
cmd/mlperf/testdata/golden/reasoning_v61_checker.txt its verdict (OK,
FAIL, or CRASH and its last line) and its ERROR and WARNING messages in
order, the tree's path written TREE, a message's newlines as \\n, less
the notes that do not depend on the tree ("Execution of check ...
skipped", the log parser's repeated keys). The Go test compares `mlperf
check --round v6.1` with the record. It prints the messages that are not
the short-run gates (run length, data-set sizes, early stopping), which
should be none.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\[\S+ \S+ \S+:\d+ (ERROR|WARNING|INFO|DEBUG)\] (.*)$")
NOISE = re.compile(r"^Execution of check \S+ skipped for |multiple messages with key|Multiple messages with key")
GATES = re.compile(r"performance_sample_count, found \d+, needs to be >= |Required minimum samples per query not met by user config|"
                   r"Test duration less than 600s in user config|Early stopping condition was not met|"
                   r"accurcy run does not cover all dataset|^Some (performance|accuracy) checks Checks failed for|"
                   r"^NoResults |^SUMMARY: submission has errors$")
OUT = os.path.join("cmd", "mlperf", "testdata", "golden", "reasoning_v61_checker.txt")


def main():
    tools = os.path.abspath(sys.argv[1])
    commit = subprocess.run(["git", "-C", tools, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE, text=True).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="submission-reasoning-")
    try:
        subprocess.run(["go", "test", "./cmd/mlperf", "-run", "^TestSubmissionReasoningV61AgreesWithTheMLCommonsChecker$", "-count=1",
                        "-reasoning-tree-dump", tmp], check=True)
        tree = os.path.join(tmp, "tree")
        out = subprocess.run([sys.executable, "-m", "submission_checker.main", "--input", tree, "--version", "v6.1",
                              "--csv", os.path.join(tmp, "summary.csv")], cwd=tools, env=dict(os.environ, PYTHONHASHSEED="0"),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        if "SUMMARY: submission looks OK" in out:
            verdict = "OK"
        elif "SUMMARY: submission has errors" in out:
            verdict = "FAIL"
        else:
            verdict = "CRASH " + [l for l in out.splitlines() if l.strip()][-1].replace(tree, "TREE")
        records = []  # [level, message]; a message's later lines follow its first
        for l in out.splitlines():
            m = LINE.match(l)
            if m:
                records.append([m.group(1), m.group(2)])
            elif l.startswith("Traceback") or l.startswith("--- Logging error ---"):
                records.append(["TRACEBACK", l])
            elif records:
                records[-1][1] += "\n" + l
        kept = [(lvl, msg.replace(tree, "TREE").replace("\n", "\\n")) for lvl, msg in records
                if lvl in ("ERROR", "WARNING") and not NOISE.search(msg)]
        with open(OUT, "w") as w:
            w.write("# scripts/goldens/submission_reasoning.py: the MLCommons checker (mlcommons/inference %s) --version v6.1\n" % commit)
            w.write("# on the deepseek-r1 and gpt-oss-120b tree of TestSubmissionReasoningV61AgreesWithTheMLCommonsChecker\n")
            w.write("verdict: " + verdict + "\n")
            for lvl, msg in kept:
                w.write(lvl + " " + msg + "\n")
        beyond = [lvl + " " + msg for lvl, msg in kept if not GATES.search(msg)]
        print("checker %s: %d messages, %d beyond the short-run gates" % (verdict, len(kept), len(beyond)))
        for b in beyond:
            print("    " + b)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
