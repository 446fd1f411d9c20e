#!/usr/bin/env python3
"""Record the MLCommons submission checker's output on every test tree.

usage: check/testdata/make_goldens.py SUBMISSION_DIR [CASE_REGEX]
SUBMISSION_DIR is mlcommons/inference's tools/submission folder (holding
submission_checker/). Run from the repository root, with Debian's python3
(python3-numpy, python3-pandas and python3-yaml installed).

The trees are the Go test's own: `go test ./check -run TestCorpus
-corpus-dump DIR` writes each case's tree to DIR/<case>/tree and its round
to DIR/<case>/round. For each case this runs
  python3 -m submission_checker.main --input DIR/<case>/tree --version ROUND
from SUBMISSION_DIR (only for the cases whose name CASE_REGEX matches, when
given) and writes check/testdata/goldens/<case>.txt: the
verdict (OK when the checker prints "SUMMARY: submission looks OK", FAIL
when it prints "SUMMARY: submission has errors", CRASH when it stops with a
traceback, whose last line follows), then its ERROR and WARNING messages
in order, the tree's path replaced by TREE and a message's newlines
written as \\n. For the ok_* cases it also keeps
the summary CSV as goldens/<case>.csv. Left out are the notes that do
not depend on the tree ("Execution of check ... skipped") and the log
parser's warnings about repeated keys.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\[\S+ \S+ \S+:\d+ (ERROR|WARNING|INFO|DEBUG)\] (.*)$")
NOISE = re.compile(r"^Execution of check \S+ skipped for |multiple messages with key|Multiple messages with key")


def main():
    tools = os.path.abspath(sys.argv[1])
    out_dir = os.path.join("check", "testdata", "goldens")
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        subprocess.run(["go", "test", "./check", "-run", "TestCorpus", "-count=1", "-corpus-dump", tmp], check=True)
        only = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
        for case in sorted(os.listdir(tmp)):
            if only and not only.search(case):
                continue
            tree = os.path.join(tmp, case, "tree")
            with open(os.path.join(tmp, case, "round")) as f:
                version = f.read().strip()
            csv = os.path.join(tmp, case, "summary.csv")
            env = dict(os.environ, PYTHONHASHSEED="0")
            p = subprocess.run([sys.executable, "-m", "submission_checker.main", "--input", tree, "--version", version,
                                "--csv", csv], cwd=tools, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            out = p.stdout
            if "SUMMARY: submission looks OK" in out:
                verdict = "OK"
            elif "SUMMARY: submission has errors" in out:
                verdict = "FAIL"
            else:
                last = [l for l in out.splitlines() if l.strip()][-1]
                verdict = "CRASH " + last.replace(tree, "TREE")
            records = []  # [level, message]; a message's later lines follow its first
            for l in out.splitlines():
                m = LINE.match(l)
                if m:
                    records.append([m.group(1), m.group(2)])
                elif l.startswith("Traceback") or l.startswith("--- Logging error ---"):
                    records.append(["TRACEBACK", l])
                elif records:
                    records[-1][1] += "\n" + l
            lines = [lvl + " " + msg.replace(tree, "TREE").replace("\n", "\\n") for lvl, msg in records
                     if lvl in ("ERROR", "WARNING") and not NOISE.search(msg)]
            with open(os.path.join(out_dir, case + ".txt"), "w") as w:
                w.write("verdict: " + verdict + "\n")
                for l in lines:
                    w.write(l + "\n")
            if case.startswith("ok_") and os.path.exists(csv):
                # The summary CSV of the passing trees.
                with open(csv) as f, open(os.path.join(out_dir, case + ".csv"), "w") as w:
                    w.write(f.read().replace(tree, "TREE"))
            print(case, verdict)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
