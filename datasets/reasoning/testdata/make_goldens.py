# Writes official_like.pkl: a pandas DataFrame pickle shaped as
# mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl (mlcommons/inference
# language/deepseek-r1) is: dataset, ground_truth (str, int, None, NaN),
# question, text_input, tok_input (numpy int64 arrays and Python lists),
# tok_input_len, ref_output, tok_ref_output_len; and the values it holds,
# as JSON, for the Go test to compare. Run with Debian's python3-pandas:
#   /usr/bin/python3 make_goldens.py
import json
import numpy as np
import pandas as pd

rows = [
    ("gpqa", "C", "Which is a noble gas?\nA) N\nB) O\nC) Ne\nD) Na", [0, 128803, 3085, 128804, 128798, 201], "Answer: C", 12),
    ("math500", "\\frac{1}{2}", "What is $1/2$ as a fraction?", [0, 128803, 5, 6, 128804, 128798, 201], "\\boxed{\\frac{1}{2}}", 30),
    ("aime1983", 204, "Find N.", [0, 128803, 7, 128804, 128798, 201], "204", 4000),
    ("livecodebench", "abc301_a", "Write a program.", [0, 128803, 8, 9, 10, 128804, 128798, 201], "```python\nprint(1)\n```", 900),
    ("mmlu_pro", None, "Pick one.", [0, 128803, 11, 128804, 128798, 201], "Answer: J", 77),
    ("mmlu_pro", float("nan"), "Pick another.", [0, 128803, 12, 128804, 128798, 201], "Answer: A", 78),
]
df = pd.DataFrame({
    "dataset": [r[0] for r in rows],
    "ground_truth": [r[1] for r in rows],
    "question": [r[2] for r in rows],
    "text_input": [r[2] + " Please reason step by step." for r in rows],
    "tok_input": [np.array(r[3], dtype=np.int64) if i % 2 == 0 else list(r[3]) for i, r in enumerate(rows)],
    "tok_input_len": [len(r[3]) for r in rows],
    "ref_output": [r[4] for r in rows],
    "tok_ref_output_len": [r[5] for r in rows],
})
df.to_pickle("official_like.pkl")
want = [{
    "dataset": r[0],
    "ground_truth": "" if r[1] is None or (isinstance(r[1], float) and r[1] != r[1]) else str(r[1]),
    "null": r[1] is None or (isinstance(r[1], float) and r[1] != r[1]),
    "question": r[2], "text_input": r[2] + " Please reason step by step.",
    "tok_input": r[3], "ref_output": r[4], "ref_len": r[5],
} for r in rows]
json.dump(want, open("official_like.json", "w"), indent=1, ensure_ascii=False)
