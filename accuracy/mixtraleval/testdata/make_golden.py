#!/usr/bin/env python3
"""Makes golden.json: the line mlcommons/inference
language/mixtral-8x7b/evaluate-accuracy.py prints for the accuracy logs
eval_log.json and eval_log_nombxp.json on eval_dataset.pkl (all written by
`go test ./accuracy/mixtraleval -args -update`).

The script's own main() runs, with evaluate_mbxp.py and mxeval's checkers
(real programs, as in accuracy/mbxp/testdata/make_goldens.py). What it
would load from the network is replaced:
  - transformers' tokenizer: decode(ids) is eval_texts.json[ids[0] - 1000];
  - nltk.sent_tokenize and evaluate's "rouge" metric: the sentence splits
    and per-pair F-measures that the real NLTK 3.8 and rouge-score 0.1.2
    computed for the same texts (accuracy/rouge/testdata/rouge_golden.json,
    the pairs the OpenOrca rows of eval_dataset.pkl come from); a text not
    found there is an error.

Needs python3-pandas, python3-tqdm, g++, php-cli, ruby, nodejs, tsc and
lodash, and mxeval at commit e09974f with `npx tsc` made `tsc` (as the
reference's Dockerfile.eval does). Usage, from the repository root:

  PATH=$PWD/.deps/node_modules/typescript/bin:$PATH NODE_PATH=$PWD/.deps/node_modules \\
    python3 accuracy/mixtraleval/testdata/make_golden.py --mxeval /tmp/mxeval \\
      --reference ../inference/language/mixtral-8x7b
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mxeval", required=True)
    ap.add_argument("--reference", required=True)
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.mxeval))
    sys.path.insert(0, os.path.abspath(args.reference))

    texts = json.load(open(os.path.join(HERE, "eval_texts.json")))
    pairs = json.load(open(os.path.join(HERE, "..", "..", "rouge", "testdata", "rouge_golden.json")))["pairs"]
    post = {}
    scores = {}
    for p in pairs:
        post[p["prediction"].strip()] = p["post_prediction"]
        post[p["target"].strip()] = p["post_target"]
        scores[(p["post_prediction"], p["post_target"])] = p["scores"]

    class Tokenizer:
        def decode(self, ids, skip_special_tokens=False):
            return texts[int(ids[0]) - 1000]

        def batch_decode(self, batch, skip_special_tokens=False):
            return [self.decode(ids) for ids in batch]

    class Auto:
        @staticmethod
        def from_pretrained(*a, **k):
            return Tokenizer()

    def sent_tokenize(text, language="english"):
        if text not in post:
            raise KeyError("no recorded sentence split for %r" % text)
        return [post[text]]

    class Rouge:
        def compute(self, predictions, references, use_stemmer, use_aggregator):
            assert use_stemmer and not use_aggregator
            out = {k: [] for k in ("rouge1", "rouge2", "rougeL", "rougeLsum")}
            for p, r in zip(predictions, references):
                s = scores[(p, r)]
                for k in out:
                    out[k].append(s[k][2])  # the F-measure, as HF evaluate's rouge returns it
            return out

    sys.modules["transformers"] = types.SimpleNamespace(AutoTokenizer=Auto)
    sys.modules["nltk"] = types.SimpleNamespace(download=lambda *a, **k: True, sent_tokenize=sent_tokenize)
    sys.modules["evaluate"] = types.SimpleNamespace(load=lambda name: Rouge())

    spec = importlib.util.spec_from_file_location("evaluate_accuracy", os.path.join(args.reference, "evaluate-accuracy.py"))
    ea = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ea)

    golden = {}
    os.chdir(tempfile.mkdtemp())  # evaluate_mbxp writes evaluated_test.json here
    for log in ("eval_log.json", "eval_log_nombxp.json"):
        sys.argv = ["evaluate-accuracy.py", "--checkpoint-path", "unused", "--mlperf-accuracy-file", os.path.join(HERE, log),
                    "--dataset-file", os.path.join(HERE, "eval_dataset.pkl"), "--dtype", "int32", "--n_workers", "2"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ea.main()
        lines = [l for l in out.getvalue().splitlines() if l.strip()]
        assert lines[-2] == "Results", lines
        golden[log] = lines[-1]
        print(log, lines[-1], file=sys.stderr)
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


main()
