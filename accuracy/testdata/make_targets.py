#!/usr/bin/env python3
"""Record the submission checker's accuracy targets as hex floats.

usage: /usr/bin/python3 make_targets.py SUBMISSION_DIR > targets.txt
SUBMISSION_DIR is mlcommons/inference's tools/submission folder. Each line
is "<model> <scenario|*> <min|max> <index> <metric> <float.hex()>" for
every "accuracy-target" and "accuracy-upper-limit" entry of every round
(the values Python computed when it imported constants.py, e.g.
76.46 * 0.99 = 0x1.2ec8b4395810ep+6), one line per distinct entry.
TestTargetsEqualTheCheckersBitForBit reads it.
"""
import sys


def main():
    sys.path.insert(0, sys.argv[1])
    from submission_checker.constants import MODEL_CONFIG
    seen = []
    for r in sorted(MODEL_CONFIG):
        cfg = MODEL_CONFIG[r]
        for kind, table in (("min", cfg["accuracy-target"]), ("max", cfg.get("accuracy-upper-limit", {}))):
            for model, t in table.items():
                per = t.items() if isinstance(t, dict) else [("*", t)]
                for scenario, tup in per:
                    for i in range(0, len(tup), 2):
                        line = "%s %s %s %d %s %s" % (model, scenario, kind, i // 2, tup[i], float(tup[i + 1]).hex())
                        if line not in seen:
                            seen.append(line)
    print("\n".join(seen))


if __name__ == "__main__":
    main()
