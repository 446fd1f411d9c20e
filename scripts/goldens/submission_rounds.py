#!/usr/bin/env python3
"""Trees written by `mlperf submission --round R`, judged by both checkers.

usage: /usr/bin/python3 scripts/goldens/submission_rounds.py MLPERF SUBMISSION_DIR OUT.txt [BENCH:ROUND ...]

MLPERF is a built mlperf binary; SUBMISSION_DIR is mlcommons/inference's
tools/submission folder (Debian's python3 with python3-numpy,
python3-pandas and python3-yaml). For every benchmark of this suite and
every round that lists it (or the BENCH:ROUND pairs given), this writes a
tree with short synthetic runs (tiny models, synthetic data, a user.conf
of 200 ms runs), then runs the MLCommons checker (--version R) and
`mlperf check --round R` on it and compares their verdicts and messages
(ERROR and WARNING lines, in order). OUT.txt records, per tree, both
verdicts, whether the messages agree, and the messages that are not the
gates a short synthetic run cannot meet (run length, data-set coverage,
sample counts and sizes, accuracy, timing-dependent early stopping and
compliance performance). Nothing here runs in `go test`; the report
cites the file.
"""
import os
import re
import subprocess
import sys
import tempfile

ROUNDS = {
    "resnet50": ["v5.0", "v5.1", "v6.0", "v6.1"],
    "bert": ["v5.0", "v5.1", "v6.0", "v6.1"],
    "unet3d": ["v5.0", "v5.1", "v6.0", "v6.1"],
    "llama2": ["v5.0", "v5.1", "v6.0", "v6.1"],
    "sdxl": ["v5.0", "v5.1", "v6.0", "v6.1"],
    "retinanet": ["v5.0", "v5.1", "v6.0"],
    "dlrm": ["v5.0", "v5.1"],
    "gptj": ["v5.0"],
    "whisper": ["v5.1", "v6.0", "v6.1"],
    "yolo": ["v6.0", "v6.1"],
}
CONF = """*.*.min_duration = 200
*.*.min_query_count = 32
*.*.performance_sample_count_override = 32
*.SingleStream.target_latency = 10
*.MultiStream.target_latency = 80
*.Offline.target_qps = 200
*.Server.target_qps = 20
llama2-70b.Server.target_qps = 4
"""
LINE = re.compile(r"^\[\S+ \S+ \S+:\d+ (ERROR|WARNING|INFO|DEBUG)\] (.*)$")
OURS = re.compile(r"^(ERROR|WARNING|INFO) (.*)$")
NOISE = re.compile(r"^Execution of check \S+ skipped for |multiple messages with key|Multiple messages with key")
GATES = re.compile(r"Test duration less than 600s|accurcy run does not cover all dataset|performance_sample_count, found|"
                   r"Required minimum samples per query|Required minimum Query Count|accuracy not met|accuracy score not found|"
                   r"Early stopping condition was not met|Compliance test performance check .* failed|"
                   r"Compliance test accuracy check \(non-deterministic mode\)|"
                   r"^Some \w+ checks? Checks failed for|^NoResults |^SUMMARY: submission has errors")
SET = re.compile(r"(does not have all required scenarios, missing \[|has file list mismatch \(\{)([^\]\}]*)")


def canonical(line):
    return SET.sub(lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))), line)


def messages(out, pattern):
    records = []
    for l in out.splitlines():
        m = pattern.match(l)
        if m:
            records.append([m.group(1), m.group(2)])
        elif l.startswith("Traceback"):
            records.append(["TRACEBACK", l])
        elif records:
            records[-1][1] += "\n" + l
    return [canonical(lvl + " " + msg) for lvl, msg in records if lvl in ("ERROR", "WARNING") and not NOISE.search(msg)]


def verdict(out):
    if "SUMMARY: submission looks OK" in out:
        return "OK"
    if "SUMMARY: submission has errors" in out:
        return "FAIL"
    return "CRASH"


def main():
    mlperf, tools, report = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    pairs = [p.split(":") for p in sys.argv[4:]] or [(b, r) for b, rs in ROUNDS.items() for r in rs]
    tmp = tempfile.mkdtemp(prefix="submission-rounds-")
    conf = os.path.join(tmp, "short.conf")
    with open(conf, "w") as f:
        f.write(CONF)
    lines = []
    for bench, rnd in pairs:
        out = os.path.join(tmp, bench + "-" + rnd)
        model = "synthetic:tiny"
        p = subprocess.run([mlperf, "submission", "--benchmark", bench, "--round", rnd, "--out", out, "--model", model,
                            "--user-conf", conf, "--submitter", "GoTest", "--system-name", "box"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            lines.append("%s %s: mlperf submission failed: %s" % (bench, rnd, p.stdout.strip().splitlines()[-1]))
            print(lines[-1], flush=True)
            continue
        real = subprocess.run([sys.executable, "-m", "submission_checker.main", "--input", out, "--version", rnd,
                               "--csv", os.path.join(tmp, "summary.csv")], cwd=tools, env=dict(os.environ, PYTHONHASHSEED="0"),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        ours = subprocess.run([mlperf, "check", out, "--round", rnd], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        rm, om = messages(real, LINE), messages(ours, OURS)
        agree = "messages agree" if rm == om else "MESSAGES DIFFER"
        beyond = sorted(set(m.replace(out, "TREE") for m in rm if not GATES.search(m.split(" ", 1)[1])))
        lines.append("%s %s: checker %s, mlperf check %s, %s; beyond the short-run gates: %s" % (
            bench, rnd, verdict(real), verdict(ours), agree, "none" if not beyond else ""))
        lines += ["    " + b.replace("\n", "\\n") for b in beyond]
        if rm != om:
            for a, b in zip(rm + [""] * len(om), om + [""] * len(rm)):
                if a != b:
                    lines.append("    checker: " + a.replace(out, "TREE").replace("\n", "\\n"))
                    lines.append("    ours:    " + b.replace(out, "TREE").replace("\n", "\\n"))
                    break
        print("\n".join(lines[-1 - len(beyond):]), flush=True)
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
