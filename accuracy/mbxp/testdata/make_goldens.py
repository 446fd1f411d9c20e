#!/usr/bin/env python3
"""Makes the MBXP test data and goldens of accuracy/mbxp with the reference
tools themselves: amazon-science/mxeval's check_correctness_* (commit
e09974f990eeaf0c0e8f2b5eaff4be66effb2c86, the one the reference README
pins) and mlcommons/inference language/mixtral-8x7b/evaluate_mbxp.py.

It picks, for each language the reference scores (cpp, python, php,
javascript, typescript, ruby) and for Go, the first problems of MBXP whose
canonical solution passes mxeval's check and whose mutated solution fails
it, and writes

  mbxp_problems.jsonl  those problems (MBXP v1.2/v1/v1.1, CC BY 4.0: see
                       LICENSE-MBXP), each with its canonical solution (Go:
                       mxeval's sample completion) and the mutated one
  mbxp_golden.json     - "check": mxeval's verdict for prompt + solution +
                         test, canonical and mutated, per problem;
                       - "runs": evaluate_mbxp() on model-like responses
                         (the prompt regenerated, the solution, a closing
                         ``` and prose after it; some with escaped
                         underscores or no closing fence): per response the
                         solution the worker handed to the checker and the
                         checker's verdict, and the pass rate returned;
                       - "postprocess": postprocess_golang, _scala and
                         _python on crafted inputs.

Needs (Debian) python3-pandas python3-tqdm g++ php-cli ruby nodejs, and
tsc and lodash (make setup puts them in .deps/node_modules). Usage:

  git clone https://github.com/amazon-science/mxeval /tmp/mxeval
  git -C /tmp/mxeval checkout e09974f990eeaf0c0e8f2b5eaff4be66effb2c86
  sed -i 's/npx tsc/tsc/g' /tmp/mxeval/mxeval/execution.py  # as the reference's Dockerfile.eval does
  PATH=$PWD/.deps/node_modules/typescript/bin:$PATH NODE_PATH=$PWD/.deps/node_modules \\
    python3 accuracy/mbxp/testdata/make_goldens.py --mxeval /tmp/mxeval \\
      --reference ../inference/language/mixtral-8x7b --out accuracy/mbxp/testdata

This runs the MBXP reference solutions and their mutations outside any
sandbox, as mxeval does; they are the benchmark's own programs.
"""
import argparse
import importlib.util
import json
import os
import sys
import tempfile

FILES = {
    "cpp": "mbcpp_release_v1.2.jsonl",
    "python": "mbpp_release_v1.jsonl",
    "php": "mbphp_release_v1.2.jsonl",
    "javascript": "mbjsp_release_v1.2.jsonl",
    "typescript": "mbtsp_release_v1.2.jsonl",
    "ruby": "mbrbp_release_v1.2.jsonl",
    "go": "mbgp_release_v1.1.jsonl",
}
PER_LANG = 4

# Mutations tried in order; the first that changes the solution is kept.
MUTATIONS = [("==", "!="), ("<=", ">"), (">=", "<"), (" < ", " >= "), (" > ", " <= "),
             (" + ", " - "), (" - ", " + "), ("True", "False"), ("true", "false"),
             ("return ", "return 1 + ")]


def mutate(sol):
    for a, b in MUTATIONS:
        if a in sol:
            return sol.replace(a, b, 1)
    return None


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mxeval", required=True)
    ap.add_argument("--reference", required=True, help="language/mixtral-8x7b of mlcommons/inference")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    sys.path.insert(0, os.path.abspath(args.mxeval))
    sys.path.insert(0, os.path.abspath(args.reference))
    os.chdir(tempfile.mkdtemp())  # evaluate_mbxp writes evaluated_test.json here
    from mxeval import execution as ex
    import evaluate_mbxp as em

    checkers = {"cpp": ex.check_correctness_cpp, "python": ex.check_correctness, "php": ex.check_correctness_php,
                "javascript": ex.check_correctness_javascript, "typescript": ex.check_correctness_typescript,
                "ruby": ex.check_correctness_ruby, "go": ex.check_correctness_go}
    data = os.path.join(args.mxeval, "data", "mbxp")
    go_samples = {s["task_id"]: s["completion"] for s in load(os.path.join(data, "examples", "mbgp_samples.jsonl"))}

    problems, checks = [], []
    for lang, fname in FILES.items():
        kept = 0
        for p in load(os.path.join(data, fname)):
            sol = go_samples.get(p["task_id"]) if lang == "go" else p.get("canonical_solution")
            if not sol:
                continue
            bad = mutate(sol)
            if bad is None:
                continue
            good_r = checkers[lang](dict(p), sol, timeout=20.0)
            if not good_r["passed"]:
                continue
            bad_r = checkers[lang](dict(p), bad, timeout=20.0)
            if bad_r["passed"]:
                continue
            problems.append({"task_id": p["task_id"], "language": lang, "prompt": p["prompt"], "test": p["test"],
                             "entry_point": p["entry_point"], "canonical_solution": sol, "mutated_solution": bad})
            checks.append({"task_id": p["task_id"], "canonical": good_r["passed"], "mutated": bad_r["passed"]})
            kept += 1
            if kept == PER_LANG:
                break
        print(lang, kept, file=sys.stderr)

    with open(os.path.join(out, "mbxp_problems.jsonl"), "w") as f:
        for p in problems:
            f.write(json.dumps(p, sort_keys=True) + "\n")

    # Record what the worker hands each checker, then call the real one.
    log = os.path.join(os.getcwd(), "calls.jsonl")

    def spy(name, real):
        def checker(problem, completion, timeout, *a, **k):
            r = real(problem, completion, timeout, *a, **k)
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, (json.dumps({"key": problem["task_id"], "solution": completion, "passed": r["passed"]}) + "\n").encode())
            os.close(fd)
            return r
        setattr(em, name, checker)
    for name in ["check_correctness_python", "check_correctness_cpp", "check_correctness_php", "check_correctness_javascript",
                 "check_correctness_typescript", "check_correctness_ruby", "check_correctness_go"]:
        spy(name, getattr(em, name))

    def response(p, sol, closed=True):
        r = "\n" + p["prompt"] + sol
        if closed:
            r += "\n```\n\nThis function solves the task; ```python\nprint('not code')\n```"
        return r

    def row(p, resp):
        return {"lang": p["language"], "prompt": p["prompt"], "test_code": p["test"],
                "entry_point": p["entry_point"], "response": resp}

    runs = []
    by_lang = {}
    for p in problems:
        by_lang.setdefault(p["language"], []).append(p)
    sets = {
        "canonical": [row(p, response(p, p["canonical_solution"])) for p in problems],
        "mutated": [row(p, response(p, p["mutated_solution"])) for p in problems],
    }
    mixed = []
    for lang, ps in by_lang.items():
        for i, p in enumerate(ps):
            if i == 0 and lang == "python":
                # Mixtral's escaped underscores, in the regenerated prompt too.
                mixed.append(row(p, response(p, p["canonical_solution"]).replace("_", "\\_")))
            elif i == 1:
                mixed.append(row(p, response(p, p["canonical_solution"], closed=False)))
            elif i == 2:
                mixed.append(row(p, response(p, p["mutated_solution"])))
            else:
                mixed.append(row(p, response(p, p["canonical_solution"])))
    sets["mixed"] = mixed
    for name, rows in sets.items():
        if os.path.exists(log):
            os.remove(log)
        rate = em.evaluate_mbxp([dict(r) for r in rows], 2)
        calls = {}
        for line in open(log):
            c = json.loads(line)
            calls[c["key"]] = c
        cases = []
        for r in rows:
            key = r["lang"] + "_" + r["entry_point"]
            c = calls.get(key)
            cases.append({"lang": r["lang"], "entry_point": r["entry_point"], "response": r["response"],
                          "checked": c is not None, "solution": c["solution"] if c else None,
                          "passed": c["passed"] if c else None})
        runs.append({"name": name, "pass_rate": rate, "cases": cases})

    inputs = {
        "golang": [
            "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc f(x int) int {\n\treturn x\n}\n\nfunc main() {\n\tfmt.Println(f(1))\n}\n",
            "package main\n\nimport (\n\t\"fmt\"\n)\n\nfunc f() {}\n",
            "import \"fmt\"\nfunc f() {}\nimport \"os\"\n",
            "\nimport \"fmt\"\nfunc f() {}\n",
            "func f() {\n}\nfunc main() {\n\tx()\n}\nfunc g() {\n}\n// end\n",
            "import (\n\"a\"\n\"b\"\n\"c\"\n)\nimport (\n\"d\"\n\"e\"\n)\nvar x = 1\n",
            "no go here",
        ],
        "scala": [
            "object Main extends App {\n  def f(x: Int) = x\n}\n",
            "def f = 1\nline two\r\nline three\rlast",
            "one line",
            "",
            "a\x0bb\x0cc\x1cd\x85e\u2028f",
        ],
        "python": ["\n\n  \tdef f():\n    pass\n", "\u3000\x1c def g(): pass", "def h(): pass  \n", ""],
    }
    post = {k: [{"in": s, "out": getattr(em, "postprocess_" + k)(s)} for s in v] for k, v in inputs.items()}

    # mxeval's Python check on completions its guards and exec change.
    mbpp1 = next(p for p in problems if p["task_id"] == "MBPP/1")
    body = mbpp1["canonical_solution"]
    quirks = [
        body + "\nexit(0)\n",
        body + "\nimport sys\nsys.exit(0)\n",
        body + "\nif __name__ == '__main__':\n    raise ValueError('main ran')\n",
        body + "\nx = input()\n",
        body + "\nimport os\nos.remove('nothing')\n",
        body + "\nprint('x' * 100000)\nimport sys\nprint('to stderr', file=sys.stderr)\n",
        body + "\nimport subprocess\nsubprocess.run(['true'])\n",
        body + "\nhelp(len)\n",
        body + "\nraise KeyboardInterrupt\n",
        body + "\nimport resource\n",
        body + "\n  syntax error(\n",
        body + "\nprint(__name__)\nassert __name__ == 'builtins', __name__\n",
    ]
    python_quirks = []
    for q in quirks:
        r = ex.check_correctness(dict(mbpp1), q, timeout=20.0)
        python_quirks.append({"completion": q, "passed": r["passed"], "result": r["result"]})

    with open(os.path.join(out, "mbxp_golden.json"), "w") as f:
        json.dump({"check": checks, "runs": runs, "postprocess": post, "python_quirks": python_quirks}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
