#!/usr/bin/env python3
"""Makes the pickle goldens of internal/pickle with pandas (Debian
python3-pandas; made with pandas 1.5.3, numpy 1.24.2).

  python3 make_pickles.py          writes frame_*.pkl, the other pickles, and
                                   pickles.json: what pandas holds in each
  python3 make_pickles.py --read F reads F (a pickle the Go writer made) with
                                   pandas and prints what it holds, as JSON
"""
import json
import pickle
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
                v = {"ndarray": str(v.dtype), "values": v.tolist()}
            elif isinstance(v, float) and v != v:
                v = "NaN"
            vals.append(v)
        cols.append({"name": name, "dtype": s.dtype.str, "values": vals})
    return {"rows": len(df), "columns": cols}


def mixtral_like():
    df = pd.DataFrame({
        "dataset": ["GSM8K", "OpenOrca", "MBXP", "OpenOrca"],
        "id": ["train.548", "cot.75001", "cpp_minCost", "flan.1"],
        "question": ["Q?", "Summarise: é, ü, 日本語 \u2028 line", "Complete", ""],
        "input": ["<s> [INST] a [/INST]", "<s> [INST] b [/INST]", "<s> [INST] c [/INST]", "<s> [INST] d [/INST]"],
        "gt_output": ["14000", "A summary.", "\nint main() {}\n", None],
        "tok_input": [[1, 733, 16289, 28793], [1, 2], [1] * 1500, list(range(300))],
        "tok_input_len": [4, 2, 1500, 300],
    })
    df["tok_ref_output"] = [[415, 907], [-1, 70000, 2**40], [], [5]]
    df["tok_ref_output_len"] = [2, 3, 0, 1]
    return df


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--read":
        json.dump(describe(pd.read_pickle(sys.argv[2])), sys.stdout, indent=1, ensure_ascii=False)
        print()
        return
    out = {}
    df = mixtral_like()
    for proto in (5, 4, 2):
        name = "frame_p%d.pkl" % proto
        df.to_pickle(name, protocol=proto)
        out[name] = describe(pd.read_pickle(name))
    # Blocks placed by arrays (a column moved), numpy arrays in cells, a
    # float and a bool column, an Int64Index, a Fortran-ordered int block.
    d2 = mixtral_like()
    d2.insert(1, "moved", d2.pop("tok_input_len"))
    d2["arrays"] = [np.array([1, 2], dtype=np.int32), np.array([3], dtype=np.int64), np.array([], dtype=np.int64), np.array([7, 8, 9], dtype=np.uint16)]
    d2["score"] = [0.5, float("nan"), -1e300, 3.0]
    d2["flag"] = [True, False, True, True]
    d2.index = pd.Index([10, 20, 30, 40])
    d2.to_pickle("frame_mixed.pkl", protocol=5)
    out["frame_mixed.pkl"] = describe(pd.read_pickle("frame_mixed.pkl"))
    f = pd.DataFrame(np.asfortranarray(np.arange(12, dtype=np.int64).reshape(4, 3)), columns=["a", "b", "c"])
    for proto in (5, 4):
        name = "frame_fortran_p%d.pkl" % proto
        f.to_pickle(name, protocol=proto)
        out[name] = describe(pd.read_pickle(name))
    # Not DataFrames.
    pd.Series([1, 2, 3], name="s").to_pickle("series.pkl")
    with open("dict.pkl", "wb") as fh:
        pickle.dump({"dataset": ["GSM8K"], "input": ["x"]}, fh, protocol=5)
    with open("pickles.json", "w") as fh:
        json.dump(out, fh, indent=1, ensure_ascii=False)
        fh.write("\n")


main()
