#!/usr/bin/env python3
"""Makes gsm8k_golden.json with the GSM8K extraction of the reference:
find_numbers, find_number, maybe_remove_comma and try_float are taken from
mlcommons/inference language/mixtral-8x7b/evaluate-accuracy.py itself (its
other imports, transformers and evaluate, are not needed for them) and run
on model-like outputs; the per-output verdict and the score follow that
script's main() (pred_text.split("\\nQ:")[0], then the float comparison).

Usage: python3 make_goldens.py REFERENCE/language/mixtral-8x7b/evaluate-accuracy.py > gsm8k_golden.json
"""
import ast
import json
import sys

src = open(sys.argv[1]).read()
wanted = {"find_numbers", "find_number", "maybe_remove_comma", "try_float"}
tree = ast.parse(src)
mod = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted], type_ignores=[])
assert len(mod.body) == len(wanted), "evaluate-accuracy.py changed: functions missing"
ns = {}
exec("import re\n", ns)
exec(compile(mod, sys.argv[1], "exec"), ns)

# Outputs like Mixtral's on the 5-shot GSM8K prompt (the answer, then it may
# go on with the next "Q:"), and the odd cases of the regular expression.
outputs = [
    ("Natalia sold 48/2 = 24 clips in May. Altogether she sold 48+24 = 72 clips. The answer is 72.", "72"),
    ("She earns 12/60 = $0.2 per minute. So for 50 minutes she earns 0.2 x 50 = $10. The answer is 10.\n\nQ: Another question with 99 apples?\nA: The answer is 99.", "10"),
    ("The total is 1,000 + 2,500 = 3,500 dollars. The answer is 3,500.", "3500"),
    ("He lost 5 - 8 = -3 points. The answer is -3.", "-3"),
    ("The price is $18.50 each, so 2 cost $37.00. The answer is $37.", "37"),
    ("The answer is 5. Wait, I made a mistake: 6 + 1 = 7. The answer is 7 apples, not 8.", "7"),
    ("There were 20 cookies and 3 were eaten, so 17 remain.", "17"),
    ("No numbers here at all.", "0"),
    ("", "5"),
    ("The answer is", "4"),
    ("The answer is unclear, but 12 seems right", "12"),
    ("Versions 1.2.3 and .5 exist; the answer is .5", "0.5"),
    ("the answer is 40 (lowercase delimiter, so the last number counts: 41)", "41"),
    ("Total: 1,23,4 items. The answer is 1,23,4.", "1234"),
    ("The answer is 42.0", "42"),
    ("The answer is 007.", "7"),
    ("Arabic-Indic digits: The answer is \u0664\u0662.", "42"),
    ("Fullwidth: The answer is \uff17\uff12", "72"),
    ("It takes 2.5 hours.\nQ: next\nThe answer is 9", "2.5"),
    ("x\nQ:The answer is 3", "3"),
    ("The answer is -,5", "-5"),
    ("The answer is 1e5", "5"),
    ("Half is 1/2. The answer is 1/2.", "0.5"),
    ("The answer is 10.5.6", "10.5"),
    ("Mid-2010s, the answer is 2,015,", "2015"),
    ("Spaces: The answer is 3 000", "3000"),
    ("The answer is 18. The answer is 19.", "19"),
    ("The answer is 18.\n\nQ: The answer is 19.", "18"),
    ("The answer is 100000000000000000000001", "100000000000000000000000"),
]
targets_extra = ["  72 ", "7_2", "inf", "nan", "1e3", "+5", "\u0667", "abc", "", "1,000", "0x10", "-0", "١٢", "1__0", "_1", "1."]

cases = []
correct = 0
for out, target in outputs:
    pred = ns["maybe_remove_comma"](ns["find_number"](out.split("\nQ:")[0]))
    ref = ns["try_float"](target)
    tgt = ns["try_float"](pred)
    ok = tgt is not None and ref == tgt
    correct += ok
    cases.append({"output": out, "target": target, "numbers": ns["find_numbers"](out),
                  "number": ns["find_number"](out), "pred": pred, "correct": bool(ok)})
floats = []
for s in targets_extra + [c["pred"] for c in cases]:
    f = ns["try_float"](s)
    floats.append({"s": s, "ok": f is not None, "value": repr(f) if f is not None else None})
json.dump({"cases": cases, "try_float": floats, "score": repr(100.0 * correct / len(outputs))},
          sys.stdout, indent=1, ensure_ascii=False)
print()
