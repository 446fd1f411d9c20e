"""The TEST07 and TEST09 cases of make_golden0709.py and test0709_test.go
(which reads cases0709.json, the JSON this module writes): each a
compliance folder built from a compact spec (output lengths, or entries
as they are), an audit.config and run_verification.py's extra arguments.
"""
import json
import os
import random

GPT_OSS_TEST09 = """*.*.mode = 2
*.*.accuracy_log_sampling_target = 10000
*.*.min_query_count = 6396
*.*.min_duration = 0
*.*.performance_issue_unique = 1
*.*.sample_concatenate_permutation = 0
# 1278.2 * 0.90 = 1150.38
*.*.test09_min_output_tokens = 1150.38
# 1278.2 * 1.10 = 1406.02
*.*.test09_max_output_tokens = 1406.02
"""

GPT_OSS_TEST07 = """*.*.mode = 2
*.*.accuracy_log_rng_seed = 720381539243781796
*.*.accuracy_log_sampling_target = 990
*.*.min_query_count = 990
*.*.min_duration = 0
*.*.performance_issue_unique = 1
*.*.sample_concatenate_permutation = 0
*.*.test07_accuracy_threshold = 60.698
"""

SCORER = """================================================================================
MLPerf Accuracy Evaluation Results
================================================================================
Total samples evaluated: 990
Overall raw accuracy: {raw}% ({c}/990)
================================================================================


Printing for submission_checker:

'exact_match': {score}
"""


def lengths_summing(n, total, rng):
    base = [total // n] * n
    for i in range(total - sum(base)):
        base[i] += 1
    # shuffle some mass around without changing the sum
    for _ in range(n):
        i, j = rng.randrange(n), rng.randrange(n)
        d = rng.randint(0, min(base[i], 200))
        base[i] -= d
        base[j] += d
    return base


def cases():
    rng = random.Random(709)
    out = []
    t09 = [
        ("t09_at_min", lengths_summing(50, 57519, rng), {}),          # mean 1150.38: just inside
        ("t09_below_min", lengths_summing(50, 57518, rng), {}),       # 1150.36: just outside
        ("t09_at_max", lengths_summing(50, 70301, rng), {}),          # 1406.02: just inside
        ("t09_above_max", lengths_summing(50, 70302, rng), {}),       # 1406.04: just outside
        ("t09_typical", [rng.randint(1100, 1450) for _ in range(40)], {}),
    ]
    for name, lengths, extra in t09:
        out.append({"name": name, "test": "TEST09", "lengths": lengths, "audit": GPT_OSS_TEST09, "args": []})
    out.append({"name": "t09_odd_entries", "test": "TEST09", "audit": GPT_OSS_TEST09, "args": ["--min-output-tokens", "1", "--max-output-tokens", "3"],
                "entries": [{"seq_id": 0, "qsl_idx": 0, "data": "0000000001000000", "token_count": 2},
                            {"seq_id": 1, "qsl_idx": 1, "data": "zz"},
                            {"seq_id": 2, "qsl_idx": 2, "data": ""},
                            {"seq_id": 3, "qsl_idx": 3, "data": "00000000000"},
                            {"seq_id": 4, "qsl_idx": 4, "data": "000000 00 01000000 02000000"},
                            {"seq_id": 5, "qsl_idx": 5},
                            {"seq_id": 6, "qsl_idx": 6, "data": 5},
                            {"seq_id": 7, "qsl_idx": 7, "data": "0000000000"}]})
    out.append({"name": "t09_jsonl", "test": "TEST09", "audit": GPT_OSS_TEST09, "args": ["--min-output-tokens", "2", "--max-output-tokens", "2.5"],
                "raw": '{"seq_id": 0, "qsl_idx": 0, "data": "0000000001000000"}\n[\n{"seq_id": 1, "qsl_idx": 1, "data": "000000000100000002000000"}, {"seq_id": 2, "qsl_idx": 2, "data": "0000000001000000"},\n{"seq_id": 3, "qsl_idx": 3, "data": "00000000"} {"seq_id": 4, "qsl_idx": 4, "data": "0000000001000000"}\n'})
    out.append({"name": "t09_inline_comment", "test": "TEST09", "lengths": [1200, 1300],
                "audit": "*.*.test09_min_output_tokens = 1250 # mean floor\n*.*.test09_max_output_tokens = 1250.5\n", "args": []})
    out.append({"name": "t09_cli_overrides", "test": "TEST09", "lengths": [1200, 1300], "audit": GPT_OSS_TEST09,
                "args": ["--max-output-tokens", "1249.99"]})
    out.append({"name": "t09_no_bounds", "test": "TEST09", "lengths": [1200], "audit": "*.*.test09_min_output_tokens = 1\n", "args": []})
    out.append({"name": "t09_bad_value", "test": "TEST09", "lengths": [1200], "audit": "*.*.test09_min_output_tokens = x\n*.*.test09_max_output_tokens = 2000\n", "args": ["--min-output-tokens", "5"]})
    t07 = [
        ("t07_at_threshold", "60.698", []),   # >= : just inside
        ("t07_below", "60.697", []),          # just outside
        ("t07_above", "83.131", []),
        ("t07_cli_override", "55.000", ["--accuracy-threshold", "55"]),
        ("t07_cli_override_fail", "54.999", ["--accuracy-threshold", "55"]),
    ]
    for name, score, args in t07:
        out.append({"name": name, "test": "TEST07", "lengths": [100, 200, 300], "audit": GPT_OSS_TEST07, "args": args,
                    "scorer": SCORER.format(raw="61.21", c=606, score=score)})
    out.append({"name": "t07_no_score", "test": "TEST07", "lengths": [100], "audit": GPT_OSS_TEST07, "args": [],
                "scorer": "Evaluation error: no LiveCodeBench problems\n"})
    out.append({"name": "t07_inline_comment", "test": "TEST07", "lengths": [100], "args": [],
                "audit": "*.*.test07_accuracy_threshold = 60.698 # threshold\n", "scorer": "'exact_match': 70.0\n"})
    out.append({"name": "t07_pattern", "test": "TEST07", "lengths": [100], "audit": GPT_OSS_TEST07,
                "args": ["--score-pattern", r"FINAL SCORE: ([\d.]+)%"], "scorer": "FINAL SCORE: 61.00% (6.10/10.00)\n'exact_match': 50.000\n"})
    return out


def build(case, root):
    """Write the case's folder under root."""
    test = case["test"]
    d = os.path.join(root, test)
    os.makedirs(d, exist_ok=True)
    if "raw" in case:
        text = case["raw"]
    else:
        entries = case.get("entries")
        if entries is None:
            entries = [{"seq_id": i, "qsl_idx": i, "data": "00000000" * n, "token_count": n}
                       for i, n in enumerate(case["lengths"])]
        text = "[\n" + ",\n".join(json.dumps(e) for e in entries) + "\n]\n"
    with open(os.path.join(d, "mlperf_log_accuracy.json"), "w") as f:
        f.write(text)
    for name in ("mlperf_log_summary.txt", "mlperf_log_detail.txt"):
        with open(os.path.join(d, name), "w") as f:
            f.write(name + " of the %s run\n" % test)
    with open(os.path.join(root, "audit.config"), "w") as f:
        f.write(case["audit"])
    if "scorer" in case:
        with open(os.path.join(root, "scorer.txt"), "w") as f:
            f.write(case["scorer"])
