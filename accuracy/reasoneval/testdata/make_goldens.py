#!/usr/bin/env python3
"""Makes the goldens of the reasoning scorers (accuracy/choice, boxed,
mathgrade, lcb, reasoneval) by running the reference evaluators themselves
on the recorded outputs of recorded.py:

  mlcommons/inference language/deepseek-r1/eval_accuracy.py
  mlcommons/inference language/gpt-oss-120b/eval_accuracy.py and
      eval_mlperf_accuracy.py
  openai/prm800k grading/grader.py (commit 7ecc794, the submodule pin)
  LiveCodeBench/LiveCodeBench lcb_runner (commit b1e7cab, the submodule pin)

Nothing of theirs is committed; pass their checkouts:

  git --git-dir=<prm800k mirror> archive 7ecc794 prm800k | tar x -C /tmp/prm800k
  git --git-dir=<LiveCodeBench mirror> archive b1e7cab lcb_runner | tar x -C /tmp/lcb
  python3 accuracy/reasoneval/testdata/make_goldens.py parse  --inference ../inference \\
      --prm800k /tmp/prm800k --lcb /tmp/lcb
  <python with sympy >= 1.13> accuracy/reasoneval/testdata/make_goldens.py grade --prm800k /tmp/prm800k
  <python with sympy >= 1.13> accuracy/reasoneval/testdata/make_goldens.py math500 --inference ../inference \\
      --prm800k /tmp/prm800k --pylatexenc /usr/lib/python3/dist-packages
  python3 accuracy/reasoneval/testdata/make_goldens.py lcb --inference ../inference --prm800k /tmp/prm800k --lcb /tmp/lcb
  python3 accuracy/reasoneval/testdata/make_goldens.py pipeline --inference ../inference --prm800k /tmp/prm800k --lcb /tmp/lcb

parse, lcb and pipeline need Debian's python3-pandas, python3-numpy,
python3-tqdm, python3-sympy and python3-pylatexenc; grade needs sympy and
pylatexenc only (the reference evaluators run in containers whose torch
pulls sympy 1.13 or later, and sympy 1.13 changed how a Float compares with
an Integer, so the grade goldens are made with sympy >= 1.13: give a
python3 that has it, with --pylatexenc naming the folder holding Debian's
pylatexenc if that python lacks it). transformers, datasets and anthropic are stubbed
(the scorers get decoded text; the stub tokenizer maps each id to the
Unicode code point of that number, which is what the Go tests decode too).

LiveCodeBench programs run as the reference runs them (in-process, with
its reliability_guard), not in a sandbox: they are our own programs in
recorded.py. The per-test alarm and the global timeout are 2 s here
instead of the reference's 60 s (the verdicts do not depend on it: each
program either finishes at once or never), which the Go tests use too.
"""
import argparse
import contextlib
import gzip
import importlib.util
import io
import json
import os
import pickle
import random
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recorded  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
LCB_TIMEOUT = 2


def out_path(pkg, name):
    return os.path.join(ROOT, "accuracy", pkg, "testdata", name)


def write_json(path, obj, gz=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = json.dumps(obj, ensure_ascii=False, indent=None, separators=(",", ":")).encode()
    if gz:
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data + b"\n")
    print("wrote", os.path.relpath(path, ROOT), len(data), "bytes")


# ---------------------------------------------------------------- stubs


class StubTokenizer:
    """Each id is a Unicode code point."""

    @classmethod
    def from_pretrained(cls, *a, **k):
        return cls()

    def decode(self, ids, skip_special_tokens=False):
        return "".join(chr(int(i)) for i in ids)

    def batch_decode(self, batch, skip_special_tokens=False):
        return [self.decode(b, skip_special_tokens) for b in batch]


def install_stubs():
    tr = types.ModuleType("transformers")
    tr.AutoTokenizer = StubTokenizer
    sys.modules["transformers"] = tr
    ds = types.ModuleType("datasets")

    def load_dataset(*a, **k):
        raise RuntimeError("datasets is stubbed: the problems come from recorded.py")
    ds.load_dataset = load_dataset
    sys.modules["datasets"] = ds
    an = types.ModuleType("anthropic")  # lcb_runner's prompts import it
    an.HUMAN_PROMPT, an.AI_PROMPT = "\n\nHuman:", "\n\nAssistant:"
    sys.modules["anthropic"] = an


def workspace(args):
    """A folder laid out as the reference expects its submodules."""
    ws = tempfile.mkdtemp(prefix="reason-ws-")
    os.makedirs(os.path.join(ws, "submodules"))
    os.symlink(os.path.abspath(args.prm800k), os.path.join(ws, "submodules", "prm800k"))
    if args.lcb:
        os.symlink(os.path.abspath(args.lcb), os.path.join(ws, "submodules", "LiveCodeBench"))
    return ws


def load_module(name, path, ws):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    mod.__file__ = os.path.join(ws, os.path.basename(path))  # submodules/ resolve in ws
    return mod


def lcb_benchmark(args):
    """The synthetic problems as the reference's CodeGenerationProblem map."""
    sys.path.insert(0, os.path.abspath(args.lcb))
    from lcb_runner.benchmarks.code_generation import CodeGenerationProblem
    import lcb_runner.evaluation.compute_code_generation_metrics as cgm
    orig = cgm.check_correctness

    def short(sample, generation, timeout, debug=True):
        return orig(sample, generation, timeout=LCB_TIMEOUT, debug=debug)
    cgm.check_correctness = short
    return {r["question_id"]: CodeGenerationProblem(**r) for r in recorded.lcb_rows()}


def references(args):
    install_stubs()
    ws = workspace(args)
    ds = load_module("ds_eval", os.path.join(args.inference, "language", "deepseek-r1", "eval_accuracy.py"), ws)
    sys.path.insert(0, os.path.join(args.inference, "language", "gpt-oss-120b"))
    go = load_module("eval_accuracy", os.path.join(args.inference, "language", "gpt-oss-120b", "eval_accuracy.py"), ws)
    if args.lcb:
        bench = lcb_benchmark(args)
        ds.load_lcb_benchmark = lambda: bench
        go.load_lcb_benchmark = lambda: bench
    return ds, go


# ---------------------------------------------------------------- families


def cmd_parse(args):
    ds, go = references(args)
    rng = random.Random(34)
    # choice
    cases = []
    for letters in ("ABCD", "ABCDEFGHIJ"):
        for text, meant in recorded.choice_outputs(rng, letters, 240):
            mx = letters[-1]
            truth = rng.choice(letters + "xK") if rng.random() < 0.1 else meant if rng.random() < 0.7 else rng.choice(letters)
            r = {"text": text, "max": mx, "truth": truth,
                 "r1": ds.parse_multiple_choice(text, mx), "harmony": go.parse_multiple_choice(text, mx)}
            opts = letters
            r["r1_ok"] = ds.evaluate_multiple_choice(r["r1"], truth, opts)
            r["harmony_ok"] = go.evaluate_multiple_choice(r["harmony"], truth, opts)
            cases.append(r)
    write_json(out_path("choice", "choice_golden.json.gz"), cases, gz=True)
    # AIME and boxed math answers
    texts, truths = recorded.aime_outputs(rng, 260)
    aime = []
    for t, g in zip(texts, truths):
        p = ds.parse_aime_answer(t)
        aime.append({"text": t, "truth": g, "parsed": p,
                     "ok": bool(ds.evaluate_aime(p, g)) if g is not None else False,
                     "boxed": ds.parse_boxed_math(t)})
    mtexts, mtruths = recorded.math_outputs(rng, 260)
    boxed = [{"text": t, "boxed": ds.parse_boxed_math(t)} for t in mtexts]
    write_json(out_path("boxed", "boxed_golden.json.gz"), {"aime": aime, "math": boxed}, gz=True)
    # code parsing
    rows = {r["question_id"]: r for r in recorded.LCB_PROBLEMS}
    code = [{"text": t, "qid": q, "r1": ds.parse_code(t), "harmony": go.parse_code(t), "final": go.extract_final_section(t)}
            for t, q in recorded.code_outputs(rng, rows, 230)]
    write_json(out_path("lcb", "parse_golden.json.gz"), code, gz=True)


def cmd_grade(args):
    """grade_answer on every pair, with the normalisers' outputs and each
    sympy comparison the grader made."""
    if args.pylatexenc:
        sys.path.append(args.pylatexenc)
    sys.path.insert(0, os.path.join(os.path.abspath(args.prm800k), "prm800k"))
    import sympy
    from grading import grader, math_normalize
    calls = []
    orig = grader.are_equal_under_sympy

    def spy(a, b):
        r = orig(a, b)
        expr = f"({a})-({b})"
        calls.append({"gt": a, "given": b, "allowed": grader.should_allow_eval(expr), "equal": r})
        return r
    grader.are_equal_under_sympy = spy
    rng = random.Random(3434)
    pairs = recorded.math_pairs(rng)
    texts, truths = recorded.math_outputs(random.Random(34), 260)
    cases = []
    for given, gt in pairs:
        n0 = len(calls)
        ok = grader.grade_answer(given, gt)
        cases.append({"given": given, "truth": gt, "ok": ok,
                      "mathd": [math_normalize.normalize_answer(given), math_normalize.normalize_answer(gt)],
                      "norm": [grader._normalize(given), grader._normalize(gt)],
                      "sympy": calls[n0:]})
    write_json(out_path("mathgrade", "grade_golden.json"),
               {"sympy_version": sympy.__version__, "cases": cases}, gz=True)


def cmd_math500(args):
    """MATH-500 scoring of whole recorded outputs: each reference's
    DATASET_EVALUATORS['math500'] (parse_boxed_math, then evaluate_math500,
    which calls prm800k's grade_answer) as process_row applies it."""
    if args.pylatexenc:
        sys.path.append(args.pylatexenc)
    import sympy
    ds, go = references(args)
    cases = []
    for text, gt in recorded.math500_recorded(random.Random(500)):
        r = {"text": text, "truth": gt}
        for flavour, mod in (("r1", ds), ("harmony", go)):
            ev = mod.DATASET_EVALUATORS["math500"]
            parsed = ev["parse"](text)
            r[flavour] = parsed
            r[flavour + "_ok"] = bool(ev["evaluate"](parsed, gt)) if parsed is not None else False
        cases.append(r)
    ok = sum(c["r1_ok"] for c in cases)
    print("%d outputs, %d correct (sympy %s)" % (len(cases), ok, sympy.__version__))
    write_json(out_path("reasoneval", "math500_golden.json.gz"),
               {"sympy_version": sympy.__version__, "cases": cases}, gz=True)


def cmd_lcb(args):
    """Whole recorded outputs over the LiveCodeBench problems, with each
    reference's parse_code and, for every distinct program, whether its
    evaluate_livecodebench passed it (an empty or missing program is not
    run: the reference returns False)."""
    ds, go = references(args)
    rows = {r["question_id"]: r for r in recorded.LCB_PROBLEMS}
    outs = recorded.code_outputs(random.Random(34), rows, 230) + recorded.lcb_recorded(random.Random(3434))
    verdicts = {}
    cases = []
    for text, qid in outs:
        c = {"text": text, "qid": qid}
        for flavour, mod in (("r1", ds), ("harmony", go)):
            code = mod.parse_code(text)
            c[flavour] = code
            if code:
                key = qid + "\x00" + code
                if key not in verdicts:
                    verdicts[key] = {"qid": qid, "code": code, "passed": bool(mod.evaluate_livecodebench(code, qid))}
            c[flavour + "_passed"] = bool(code) and verdicts[qid + "\x00" + code]["passed"]
        cases.append(c)
    # the problems as the data set ships them
    with open(out_path("lcb", "problems.jsonl"), "w") as f:
        for r in recorded.lcb_rows():
            f.write(json.dumps(r) + "\n")
    vs = sorted(verdicts.values(), key=lambda v: (v["qid"], v["code"]))
    print("%d outputs, %d programs, %d pass" % (len(cases), len(vs), sum(v["passed"] for v in vs)))
    write_json(out_path("lcb", "recorded_golden.json.gz"), {"outputs": cases, "verdicts": vs}, gz=True)


# ---------------------------------------------------------------- pipelines


def mlperf_log(entries):
    """An mlperf_log_accuracy.json with int32 ids (one per code point)."""
    import struct
    out = []
    for seq, (qsl, text) in enumerate(entries):
        ids = [ord(c) for c in text]
        out.append({"seq_id": seq, "qsl_idx": qsl, "data": struct.pack("<%di" % len(ids), *ids).hex().upper(),
                    "token_count": len(ids)})
    return out


def write_log(path, entries):
    """The log as LoadGen lays it out: "[", one entry a line, "]"."""
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in mlperf_log(entries)) + "\n]\n")


def pipeline_rows(rng, ds_names, lcb_count):
    """(dataset name, ground truth, output) rows over every family."""
    rows = []
    chs = recorded.choice_outputs(rng, "ABCD", 40)
    rows += [(ds_names["gpqa"], c if rng.random() < 0.7 else rng.choice("ABCD"), t) for t, c in chs]
    if "mmlu_pro" in ds_names:
        rows += [(ds_names["mmlu_pro"], c if rng.random() < 0.7 else rng.choice("ABCDEFGHIJ"), t)
                 for t, c in recorded.choice_outputs(rng, "ABCDEFGHIJ", 30)]
    at, ag = recorded.aime_outputs(rng, 30)
    rows += [(ds_names["aime"], g if g is not None else "7", t) for t, g in zip(at, ag)]
    if "math500" in ds_names:
        mt, mg = recorded.math_outputs(rng, 30)
        rows += [(ds_names["math500"], g, t) for t, g in zip(mt, mg)]
    probs = {r["question_id"]: r for r in recorded.LCB_PROBLEMS}
    quick = [p for p in recorded.LCB_PROBLEMS]
    for i in range(lcb_count):
        p = quick[i % len(quick)]
        sol = p["solutions"][i % 3]  # right, right, wrong or right: no slow ones
        text = recorded.r1(rng, "```python\n%s\n```" % sol) if i % 2 == 0 else recorded.harmony(rng, "```python\n%s\n```" % sol)
        rows.append((ds_names["livecodebench"], p["question_id"], text))
    rng.shuffle(rows)
    return rows


def cmd_pipeline(args):
    ds, go = references(args)
    import pandas as pd
    rng = random.Random(3434)
    work = tempfile.mkdtemp(prefix="reason-pipe-")
    golden = {}
    # DeepSeek-R1: the MLPerf log path (dedupe by qsl_idx, out-of-range skipped)
    rows = pipeline_rows(rng, {"gpqa": "gpqa", "mmlu_pro": "mmlu_pro", "aime": "aime1983",
                               "math500": "math500", "livecodebench": "livecodebench"}, 6)
    df = pd.DataFrame({"dataset": [r[0] for r in rows], "ground_truth": [r[1] for r in rows],
                       "question": ["q%d" % i for i in range(len(rows))]})
    entries = [(i, r[2]) for i, r in enumerate(rows)]
    entries = entries[:5] + [(3, "duplicate of 3, ignored"), (len(rows) + 7, "out of range")] + entries[5:]
    dsf = os.path.join(work, "ds.pkl")
    df.to_pickle(dsf)
    logf = os.path.join(work, "mlperf_log_accuracy.json")
    write_log(logf, entries)
    dfe, _ = ds.process_mlperf_log_accuracy(logf, dsf, "stub", output_dir=work)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ds.print_evaluation_results(dfe)
    golden["deepseek"] = {"rows": [{"dataset": r[0], "truth": r[1]} for r in rows],
                          "log": [{"qsl_idx": q, "text": t} for q, t in entries],
                          "stdout": buf.getvalue(),
                          "correct": [float(x) for x in dfe["prompt_accuracy"]]}
    # gpt-oss-120b: eval_mlperf_accuracy.py's main
    sys.modules["eval_accuracy"] = go
    em = load_module("eval_mlperf_accuracy", os.path.join(args.inference, "language", "gpt-oss-120b", "eval_mlperf_accuracy.py"), workspace(args))
    if args.lcb:
        em.load_lcb_benchmark = go.load_lcb_benchmark
    rows = pipeline_rows(rng, {"gpqa": "gpqa_diamond", "aime": "AIME25", "math500": "math500",
                               "livecodebench": "livecodebench_v6"}, 6)
    df = pd.DataFrame({"dataset": [r[0] for r in rows], "ground_truth": [r[1] for r in rows]})
    entries = [(i, r[2]) for i, r in enumerate(rows)]
    entries = entries + [(2, rows[2][2]), (len(rows) + 3, "out of range")]
    dsf = os.path.join(work, "gpt.pkl")
    df.to_pickle(dsf)
    logf = os.path.join(work, "gpt_log.json")
    write_log(logf, entries)
    sys.argv = ["eval_mlperf_accuracy.py", "--mlperf-log", logf, "--reference-data", dsf, "--tokenizer", "stub", "--num-lcb-workers", "2"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        em.main()
    golden["gptoss"] = {"rows": [{"dataset": r[0], "truth": r[1]} for r in rows],
                        "log": [{"qsl_idx": q, "text": t} for q, t in entries],
                        "stdout": buf.getvalue()}
    write_json(out_path("reasoneval", "pipeline_golden.json"), golden)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["parse", "grade", "math500", "lcb", "pipeline"])
    ap.add_argument("--inference", help="mlcommons/inference checkout")
    ap.add_argument("--prm800k", required=True, help="openai/prm800k checkout (holding prm800k/grading)")
    ap.add_argument("--lcb", help="LiveCodeBench checkout (holding lcb_runner)")
    ap.add_argument("--pylatexenc", help="folder holding the pylatexenc package, for a python without it")
    args = ap.parse_args()
    {"parse": cmd_parse, "grade": cmd_grade, "math500": cmd_math500, "lcb": cmd_lcb, "pipeline": cmd_pipeline}[args.what](args)


if __name__ == "__main__":
    main()
