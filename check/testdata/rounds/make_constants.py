#!/usr/bin/env python3
"""Dump the MLCommons submission checker's round tables to constants.json.

usage: /usr/bin/python3 make_constants.py SUBMISSION_DIR
SUBMISSION_DIR is mlcommons/inference's tools/submission folder (holding
submission_checker/). The Go tests compare check's round tables and
accuracy's targets with this file. Floats are written as float.hex() so
that a target's last bit is compared (the checker computes 76.46 * 0.99 in
float64 at import time); integers that do not fit a float64 (the seeds) as
decimal strings.
"""
import json
import os
import sys


def enc(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        return {"hex": v.hex()}
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [enc(x) for x in v]
    if isinstance(v, dict):
        return {str(k): enc(x) for k, x in v.items()}
    return v


def main():
    sys.path.insert(0, sys.argv[1])
    from submission_checker import constants as c
    out = {"rounds": {}, "global": {}}
    for r, cfg in c.MODEL_CONFIG.items():
        out["rounds"][r] = enc(cfg)
    for name in ["VALID_DIVISIONS", "VALID_AVAILABILITIES", "OFFLINE_MIN_SPQ_SINCE_V4",
                 "LLM_LATENCY_LIMITS", "RESULT_FIELD_NEW", "RESULT_FIELD_BENCHMARK_OVERWRITE",
                 "RESULT_FIELD_ENDPOINTS", "REQUIRED_ACC_BENCHMARK", "ACC_PATTERN",
                 "SYSTEM_DESC_REQUIRED_FIELDS", "SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS",
                 "SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE", "SYSTEM_IMP_REQUIRED_FILES",
                 "REQUIRED_MEASURE_FILES", "REQUIRED_COMP_PER_FILES", "REQUIRED_TEST01_ACC_FILES",
                 "MAX_ACCURACY_LOG_SIZE", "TEST_DURATION_MS", "TEST09_LOW", "TEST09_HIGH",
                 "ENDPOINTS_ALLOWED_MODELS", "ENDPOINTS_MAPPINGS", "ENDPOINTS_YAML_FIELD_MAP",
                 "ENDPOINTS_JSON_ALT_PATHS", "ENDPOINTS_INFERRED_FIELDS", "ENDPOINTS_COMPLIANCE_MAPPING",
                 "SPECIAL_UNIT_DICT", "UNIT_DICT"]:
        out["global"][name] = enc(getattr(c, name))
    paths = {}
    for name in dir(c):
        v = getattr(c, name)
        if name.endswith("_PATH") or name == "ENDPOINTS_SCENARIO_DIR":
            if isinstance(v, dict):
                paths[name] = {r: v.get(r, v.get("default")) for r in c.MODEL_CONFIG}
    out["global"]["paths"] = paths
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "constants.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
