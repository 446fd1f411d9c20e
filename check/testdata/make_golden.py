#!/usr/bin/env python3
"""Record the MLCommons submission checker's verdicts on the test trees.

usage: make_golden.py TOOLS_DIR
TOOLS_DIR is mlcommons/inference's tools/ folder (holding
submission/submission_checker). For each variant of mutations.txt this
copies base/ to a temporary folder, applies the mutation (the same rules
check_test.go applies), runs
  python3 -m submission.submission_checker.main --input TREE --version v6.1
from TOOLS_DIR and writes the verdict (OK when it prints "SUMMARY:
submission looks OK", else FAIL) to verdicts.txt and its ERROR lines, with
the temporary path replaced by TREE, to verdicts/<variant>.txt.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
R = "closed/GoTest/results/go_null_sut/resnet/"
L = "closed/GoTest/results/go_llm_box/llama2-70b-99.9/"


def expand(tree, path):
    return os.path.join(tree, path.replace("R/", R, 1).replace("L/", L, 1))


def mutate(tree, op, path, args):
    p = expand(tree, path)
    if op == "none":
        return
    if op == "mv":
        os.rename(p, expand(tree, args[0]))
        return
    if op == "rm":
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    elif op == "write":
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(args[0].replace("\\n", "\n") if args else "")
    elif op == "sub":
        s = open(p).read()
        assert args[0] in s, (p, args[0])
        open(p, "w").write(s.replace(args[0], args[1] if len(args) > 1 else ""))
    elif op == "append":
        with open(p, "a") as f:
            f.write(args[0].replace("\\n", "\n"))
    elif op == "pad":
        n = int(args[0])
        size = os.path.getsize(p)
        with open(p, "a") as f:
            f.write(" " * (n - size))
    else:
        raise ValueError(op)


def main():
    tools = sys.argv[1]
    verdicts = []
    os.makedirs(os.path.join(HERE, "verdicts"), exist_ok=True)
    variants = {}
    for line in open(os.path.join(HERE, "mutations.txt")):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        variants.setdefault(f[0], []).append(f)
    for name, ops in variants.items():
        with tempfile.TemporaryDirectory() as tmp:
            tree = os.path.join(tmp, "tree")
            shutil.copytree(os.path.join(HERE, "base"), tree)
            for f in ops:
                mutate(tree, f[1], f[2] if len(f) > 2 else "", f[3:])
            out = subprocess.run([sys.executable, "-m", "submission.submission_checker.main",
                                  "--input", tree, "--version", "v6.1"], cwd=tools,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        ok = "SUMMARY: submission looks OK" in out
        verdicts.append("%s %s" % (name, "OK" if ok else "FAIL"))
        errs = sorted(set(re.sub(r"^\[[^\]]*\] ", "", l).replace(tree, "TREE")
                          for l in out.splitlines() if " ERROR] " in l))
        with open(os.path.join(HERE, "verdicts", name + ".txt"), "w") as w:
            w.write("\n".join(errs) + "\n")
    with open(os.path.join(HERE, "verdicts.txt"), "w") as w:
        w.write("\n".join(verdicts) + "\n")


if __name__ == "__main__":
    main()
