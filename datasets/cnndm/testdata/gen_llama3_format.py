#!/usr/bin/python3
"""Writes llama3_format.json: two records in the layout of mlcommons/inference
language/llama3.1-8b/download_cnndm.py (json.dump(records, f, indent=4,
ensure_ascii=False), keys instruction, input, tok_input, output), with
quotes, backslashes, control characters and non-ASCII text, so the Go writer
and reader are checked against Python's json module byte for byte.

    /usr/bin/python3 gen_llama3_format.py
"""
import json

T = ("Summarize the following news article in 128 tokens. Please output the summary only, "
     "without any other text.\n\nArticle:\n{input}\n\nSummary:")
recs = [
    {"instruction": {"llama": T}, "input": "(CNN) -- \"Quoted\" back\\slash\ttab \u00e9t\u00e9 \u6771\u4eac \U0001F600 \x01ctl\r\n.",
     "tok_input": [128000, 9906, 1917, 0], "output": "Line one .\nLine two \u2014 done ."},
    {"instruction": {"llama": T}, "input": "By . DAILY MAIL REPORTER . \u00a325million", "tok_input": [128000, 1],
     "output": "Short ."},
]
with open("llama3_format.json", "w") as f:
    json.dump(recs, f, indent=4, ensure_ascii=False)
