#!/usr/bin/env python3
"""Record run_verification.py's outputs on the compliance test cases.

usage: make_golden.py COMPLIANCE_DIR
COMPLIANCE_DIR is mlcommons/inference's compliance/ folder (with
tools/submission beside it, which verify_performance.py imports). For each
line of variants.txt this copies cases/<case> to a temporary folder,
applies the mutation (the same rules verify_test.go applies), runs
  python3 COMPLIANCE_DIR/<test>/run_verification.py -r results -c <test> -o out [--dtype D]
in the temporary folder and stores the files it writes (verify_accuracy.txt,
verify_performance.txt), its console output and, for TEST01,
create_accuracy_baseline.sh's mlperf_log_accuracy_baseline.json under
golden/<variant>/,
with the log_parser INFO lines' time and the temporary path replaced by
fixed text.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def norm(text, tmp):
    text = text.replace(tmp + "/", "")
    return re.sub(r"^\[[0-9-]+ [0-9:,]+ log_parser\.py:\d+ INFO\]", "[TIME log_parser.py:72 INFO]", text, flags=re.M)


def mutate(case, f):
    """Applies each mutation of f: none, or groups of sub|subline FILE OLD NEW."""
    if f[0] == "none":
        return
    for i in range(0, len(f), 4):
        mutate_one(case, f[i:i + 4])


def mutate_one(case, f):
    path = os.path.join(case, f[1])
    s = open(path).read()
    if f[0] == "sub":
        assert f[2] in s
        s = s.replace(f[2], f[3])
    elif f[0] == "subline":
        s = "".join(f[3] + "\n" if l.startswith(f[2]) else l for l in s.splitlines(True))
    open(path, "w").write(s)


def main():
    comp = os.path.abspath(sys.argv[1])
    for line in open(os.path.join(HERE, "variants.txt")):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        name, case, test, dtype = f[:4]
        out_dir = os.path.join(HERE, "golden", name)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        with tempfile.TemporaryDirectory() as tmp:
            c = os.path.join(tmp, "case")
            shutil.copytree(os.path.join(HERE, "cases", case), c)
            mutate(c, f[4:])
            cmd = [sys.executable, os.path.join(comp, test, "run_verification.py"),
                   "-r", os.path.join(c, "results"), "-c", os.path.join(c, test), "-o", os.path.join(c, "out")]
            if dtype != "-":
                cmd += ["--dtype", dtype]
            p = subprocess.run(cmd, cwd=c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            with open(os.path.join(out_dir, "console.txt"), "w") as w:
                w.write(norm(p.stdout, tmp))
            if test == "TEST01":
                # Part III's baseline log, as create_accuracy_baseline.sh makes it.
                subprocess.run(["bash", os.path.join(comp, "TEST01", "create_accuracy_baseline.sh"),
                                os.path.join(c, "results", "accuracy", "mlperf_log_accuracy.json"),
                                os.path.join(c, "TEST01", "mlperf_log_accuracy.json")], cwd=tmp,
                               stdout=subprocess.DEVNULL, check=True)
                shutil.copy(os.path.join(tmp, "mlperf_log_accuracy_baseline.json"), out_dir)
            for fn in ["verify_accuracy.txt", "verify_performance.txt"]:
                src = os.path.join(c, "out", test, fn)
                if os.path.exists(src):
                    with open(os.path.join(out_dir, fn), "w") as w:
                        w.write(norm(open(src).read(), tmp))


if __name__ == "__main__":
    main()
