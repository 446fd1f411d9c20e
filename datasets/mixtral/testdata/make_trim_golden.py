#!/usr/bin/env python3
"""Makes trim_golden.json: what the reference's Dataset.remove_trailing_twos
and Dataset.mbxp_stop (mlcommons/inference language/mixtral-8x7b/dataset.py,
taken from the file itself; its other imports, torch and transformers, are
not needed for them) make of generated ids, as postProcess applies them
to each row's numpy output.

Usage: python3 make_trim_golden.py REFERENCE/language/mixtral-8x7b/dataset.py > trim_golden.json
"""
import ast
import json
import sys

import numpy as np

src = open(sys.argv[1]).read()
cls = next(n for n in ast.parse(src).body if isinstance(n, ast.ClassDef) and n.name == "Dataset")
fns = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name in ("remove_trailing_twos", "mbxp_stop")]
assert len(fns) == 2, "dataset.py changed"
ns = {}
exec(compile(ast.Module(body=fns, type_ignores=[]), sys.argv[1], "exec"), ns)
stop = [13, 13940, 28832, 13]
cases = [
    [5, 6, 7, 2],
    [5, 6, 7, 2, 2, 2],
    [5, 2, 6, 0, 2, 0],
    [2, 2, 2],
    [],
    [0],
    [9, 13, 13940, 28832, 13, 55, 66, 2],
    [13, 13940, 28832, 13],
    [1] + stop + [7] + stop + [2],
    [13, 13940, 28832, 12, 13, 13940, 28832],
    [13, 13940, 28832, 13, 2, 2],
    list(range(1, 40)) + [2],
]
out = []
for ids in cases:
    a = np.array(ids, dtype=np.int64)
    trimmed = ns["remove_trailing_twos"](None, a)
    out.append({"ids": ids, "other": [int(x) for x in trimmed],
                "mbxp": [int(x) for x in ns["mbxp_stop"](None, trimmed)]})
json.dump(out, sys.stdout, indent=1)
print()
