#!/usr/bin/env python3
"""Record compliance/TEST07 and compliance/TEST09 run_verification.py on
the cases of cases0709.py.

usage: make_golden0709.py COMPLIANCE_DIR   (mlcommons/inference's compliance/)

Writes cases0709.json (the specs, which test0709_test.go builds the same
folders from) and, per case, golden0709/<name>/: console.txt (stdout and
stderr), rc (the exit status) and the verify file the script wrote. Each
case runs in a fresh temporary folder with relative paths:

  python3 run_verification.py -c TEST0X -o out --audit-config audit.config [args]
  (TEST07 adds --accuracy-script "cat scorer.txt #{accuracy_log}": the
  scorer's printout stands for the benchmark's accuracy script)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases0709  # noqa: E402


def main():
    comp = os.path.abspath(sys.argv[1])
    all_cases = cases0709.cases()
    with open(os.path.join(HERE, "cases0709.json"), "w") as f:
        json.dump(all_cases, f, indent=0)
        f.write("\n")
    for case in all_cases:
        out_dir = os.path.join(HERE, "golden0709", case["name"])
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        with tempfile.TemporaryDirectory() as tmp:
            cases0709.build(case, tmp)
            test = case["test"]
            cmd = [sys.executable, os.path.join(comp, test, "run_verification.py"), "-c", test, "-o", "out",
                   "--audit-config", "audit.config"] + case["args"]
            if test == "TEST07":
                cmd += ["--accuracy-script", "cat scorer.txt #{accuracy_log}"]
            p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
            with open(os.path.join(out_dir, "console.txt"), "w") as f:
                f.write(p.stdout + p.stderr)
            with open(os.path.join(out_dir, "rc"), "w") as f:
                f.write("%d\n" % p.returncode)
            name = "verify_output_len.txt" if test == "TEST09" else "verify_accuracy.txt"
            src = os.path.join(tmp, "out", test, name)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(out_dir, name))
        print(case["name"], p.returncode)


if __name__ == "__main__":
    main()
