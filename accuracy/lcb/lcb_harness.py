# Grades one LiveCodeBench program against its tests the way
# LiveCodeBench/LiveCodeBench lcb_runner/evaluation/testing_util.py
# (run_test, commit b1e7cab, the one mlcommons/inference pins) grades it,
# inside the sandbox package's folder: the program is executed in this
# process with the same prelude of star imports, a LeetCode "class
# Solution" is instantiated and its method called with the JSON inputs, a
# standard-input program is wrapped in a function and fed each input
# through patched stdin/open, each test has an alarm of the given seconds,
# outputs are compared line by line, then as Decimals. The same functions
# are disabled as the reference's reliability_guard disables.
#
# Usage: python3 lcb_harness.py NONCE   (reads solution.py and tests.json;
# prints NONCE followed by the JSON result list as its last line)
import ast
import builtins
import faulthandler
import json
import signal
import sys
import time
from decimal import Decimal
from io import StringIO
from types import ModuleType
from unittest.mock import mock_open, patch

sys.set_int_max_str_digits(50000)

PRELUDE_MODULES = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
                   "statistics", "itertools", "functools", "operator", "io", "sys", "json"]
PRELUDE = "".join("from %s import *\n" % m for m in PRELUDE_MODULES[:-1]) \
    + "from json import *\nfrom builtins import *\nfrom typing import *\n" \
    + "".join("import %s\n" % m for m in PRELUDE_MODULES) + "sys.setrecursionlimit(50000)\n"


class TimeoutException(Exception):
    pass


def on_alarm(signum, frame):
    print("timeout occured: alarm went off")
    raise TimeoutException


class Captured(list):
    """stdout captured into a list of one string."""

    def __enter__(self):
        self._stdout = sys.stdout
        sys.stdout = self._io = StringIO()
        self._io.close = lambda x: 1
        return self

    def __exit__(self, *args):
        self.append(self._io.getvalue())
        del self._io
        sys.stdout = self._stdout


class Buffer:
    def __init__(self, data):
        self.data = data.encode("utf-8")

    def read(self, *args):
        return self.data

    def readline(self, *args):
        return self.data.split(b"\n")[0] + b"\n"


class Stdin:
    def __init__(self, data):
        self.data = data
        self._io = StringIO(data)
        self.buffer = Buffer(data)

    def read(self, *args):
        return self.data

    def readline(self, *args):
        return self._io.readline(*args)

    def readlines(self, *args):
        return self.data.split("\n")

    def __getattr__(self, name):
        return getattr(self._io, name)


def strip_main_guard(code):
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def as_function(code):
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        fn = ast.FunctionDef(name="wrapped_function",
                             args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                             body=rest, decorator_list=[], lineno=-1)
        return PRELUDE + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:
        return code


def run_with_stdin(method, inputs):
    if isinstance(inputs, list):
        inputs = "\n".join(inputs)
    lines = iter(inputs.split("\n"))
    stdin = Stdin(inputs)

    @patch("builtins.open", mock_open(read_data=inputs))
    @patch("sys.stdin", stdin)
    @patch("sys.stdin.readline", lambda *args: next(lines))
    @patch("sys.stdin.readlines", lambda *args: inputs.split("\n"))
    @patch("sys.stdin.read", lambda *args: inputs)
    def call(m):
        try:
            return m()
        except SystemExit:
            pass

    return call(method)


def load(code, timeout):
    signal.alarm(timeout)
    try:
        mod = ModuleType("tmp_sol", "")
        exec(code, mod.__dict__)
        sol = mod.Solution() if "class Solution" in code else mod
        assert sol is not None
    finally:
        signal.alarm(0)
    return sol


def decimals(line):
    try:
        return True, [Decimal(x) for x in line.split()]
    except Exception:
        return False, []


def stripped_lines(s):
    return [x.strip() for x in s.strip().split("\n")]


def grade_call(code, inputs, outputs, fn_name, timeout):
    sol = load(PRELUDE + "\n\n" + code, timeout)
    if sol is None:
        return None
    method = getattr(sol, fn_name, None)
    if method is None:
        return None
    inputs = [[json.loads(line) for line in x.split("\n")] for x in inputs]
    outputs = [json.loads(x) for x in outputs]
    results = []
    for args, want in zip(inputs, outputs):
        signal.alarm(timeout)
        faulthandler.enable()
        try:
            got = method(*args)
            signal.alarm(0)
            if isinstance(got, tuple):
                got = list(got)
            ok = got == want
            results.append(ok)
            if not ok:
                return results
        except Exception as e:
            signal.alarm(0)
            results.append(-3 if "timeoutexception" in repr(e).lower() else -4)
            return results
        finally:
            signal.alarm(0)
            faulthandler.disable()
    return results


def grade_stdin(code, inputs, outputs, timeout):
    sol = load(as_function(strip_main_guard(code)), timeout)
    if sol is None:
        return None
    method = getattr(sol, "wrapped_function", None)
    if method is None:
        return None
    results = []
    for inp, want in zip(inputs, outputs):
        signal.alarm(timeout)
        faulthandler.enable()
        signal.alarm(timeout)
        with Captured() as out:
            try:
                run_with_stdin(method, inp)
                signal.alarm(0)
            except Exception as e:
                signal.alarm(0)
                results.append(-3 if "timeoutexception" in repr(e).lower() else -4)
                return results
            finally:
                signal.alarm(0)
                faulthandler.disable()
        got, exp = stripped_lines(out[0]), stripped_lines(want)
        if len(got) != len(exp):
            results.append(-2)
            return results
        for g, w in zip(got, exp):
            if g == w:
                continue
            ok1, dg = decimals(g)
            ok2, dw = decimals(w)
            if not ok1 or not ok2 or dg != dw:
                results.append(-2)
                return results
        results.append(True)
    return results


def guard():
    """The reference's reliability_guard(None)."""
    import os
    import shutil
    import subprocess
    faulthandler.disable()
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ["kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
                 "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
                 "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"]:
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for m in ["ipdb", "joblib", "resource", "psutil", "tkinter"]:
        sys.modules[m] = None


def main():
    nonce = sys.argv[1]
    out = sys.stdout
    with open("solution.py", encoding="utf-8") as f:
        code = f.read()
    with open("tests.json", encoding="utf-8") as f:
        spec = json.load(f)
    timeout = spec["timeout"]
    signal.signal(signal.SIGALRM, on_alarm)
    guard()
    try:
        if spec.get("fn_name") is None:
            results = grade_stdin(code, spec["inputs"], spec["outputs"], timeout)
        else:
            results = grade_call(code, spec["inputs"], spec["outputs"], spec["fn_name"], timeout)
        results = [bool(r) if isinstance(r, bool) else int(r) for r in results]
    except Exception:
        results = [-4]
    finally:
        signal.alarm(0)
    out.write("\n" + nonce + json.dumps(results) + "\n")
    out.flush()


main()
