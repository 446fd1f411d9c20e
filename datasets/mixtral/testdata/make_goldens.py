#!/usr/bin/env python3
"""Makes the pickle goldens of datasets/mixtral with pandas (Debian
python3-pandas; made with pandas 1.5.3, numpy 1.24.2).

  python3 make_goldens.py           writes official_like.pkl (a DataFrame
                                    built the way the reference's
                                    standalone_infer/hf_eval_all.py leaves
                                    the official file: columns dropped,
                                    renamed and added, so its blocks are
                                    not consolidated), llama2_openorca.pkl
                                    (another data set's pickle), and
                                    official_like.json (what pandas holds)
  python3 make_goldens.py --read F  prints what pandas holds in F (a file
                                    the Go writer made) as JSON
"""
import json
import sys

import numpy as np
import pandas as pd


def describe(df):
    cols = []
    for name in df.columns:
        s = df[name]
        vals = []
        for v in s.tolist():
            if isinstance(v, np.ndarray):
                v = v.tolist()
            vals.append(v)
        cols.append({"name": name, "dtype": s.dtype.str, "values": vals})
    return {"rows": len(df), "columns": cols}


def official_like():
    df = pd.DataFrame({
        "dataset": ["GSM8K", "OpenOrca", "MBXP", "MBXP", "OpenOrca"],
        "id": ["train.548", "cot.75001", "cpp_minCost", "python_min_cost", "flan.1"],
        "question": ["Gary manages two centers?", "Summarise: é, ü, 日本語", "int minCost(...)", None, "Q"],
        "input": ["<s> [INST] As an expert problem solver [/INST]", "<s> [INST] b [/INST]", "<s> [INST] c [/INST]Here's the completed code:\n\n```cpp", "<s> [INST] d [/INST]", "<s> [INST] e [/INST]"],
        "ref_output": ["The first center ... 14000", "A summary.", "code", "code", "x"],
        "gt_output": ["14000", "A summary.", "\nint main() {}\n", "\n\ndef check(candidate):\n    assert True\n", "Answer."],
        "tok_input": [[1, 1, 28705, 733, 16289, 28793], [1, 2], [1] * 700, list(range(1, 301)), [1, 31999]],
        "tok_ref_output": [[415, 907, 2], [330, 2], [13, 2], [13, 2], [5, 2]],
        "stop_sequence": ["</s>"] * 5,
        "tok_stop_sequence": [[2]] * 5,
        "tok_input_len": [6, 2, 700, 300, 2],
        "tok_ref_output_len": [3, 2, 2, 2, 2],
    })
    # As hf_eval_all.py's run_infer, trim_twos, mbxp_stop and fix_name do.
    df["infer_tok_input"] = df["tok_input"]
    df["infer_tok_input_length"] = df["tok_input_len"]
    df["infer_ref_output"] = ["Gary ... The answer is 14000.", "Summary.", "\nint minCost() {}\n```\n", "\ndef min_cost(): pass\n```\n", "Answer."]
    df["infer_tok_ref_output"] = [np.array([415, 907, 2]), [330], [13, 13940, 28832, 13], [13], [5]]
    df["infer_tok_ref_output_length"] = [3, 1, 4, 1, 1]
    df["trim_lengths"] = df["infer_tok_ref_output"].apply(len)
    df.drop(columns=["ref_output", "tok_ref_output", "tok_ref_output_len", "infer_tok_ref_output_length",
                     "infer_tok_input", "infer_tok_input_length"], inplace=True)
    df.rename(columns={"infer_ref_output": "ref_output", "infer_tok_ref_output": "tok_ref_output",
                       "trim_lengths": "tok_ref_output_len"}, inplace=True)
    df.index = pd.Index([548, 75001, 3, 4, 1])
    return df


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--read":
        json.dump(describe(pd.read_pickle(sys.argv[2])), sys.stdout, indent=1, ensure_ascii=False)
        print()
        return
    df = official_like()
    df.to_pickle("official_like.pkl")
    with open("official_like.json", "w") as f:
        json.dump(describe(pd.read_pickle("official_like.pkl")), f, indent=1, ensure_ascii=False)
        f.write("\n")
    pd.DataFrame({
        "id": ["cot.1"], "system_prompt": ["sys"], "question": ["q"], "output": ["o"], "input": ["i"],
        "tok_input": [[1, 2]], "tok_output": [[3]], "origin": ["cot"],
    }).to_pickle("llama2_openorca.pkl")


main()
