"""Runs main.py the way amazon-science/mxeval's check_correctness
(mxeval/execution.py) runs a Python completion: the whole text exec'd with
fresh globals (so __name__ is "builtins" and `if __name__ == "__main__":`
blocks do not run), the standard streams replaced by a sink that swallows
writes and fails reads, and first the functions its reliability_guard()
disables set to None (exit, quit, help, os.kill, os.system, os.remove,
os.chdir, shutil.rmtree, subprocess.Popen, ...). Prints "passed" or
"failed: <exception>" on the real standard error and exits 0 or 1.

Written for mlperf-go's MBXP scorer (accuracy/mbxp); runs inside the
sandbox, which enforces the time limit mxeval enforces with SIGALRM.
"""
import builtins
import faulthandler
import io
import os
import shutil
import subprocess
import sys


class Sink(io.StringIO):
    """Takes writes and forgets them; any read fails."""

    def write(self, s):
        return len(s)

    def read(self, *args, **kwargs):
        raise IOError

    def readline(self, *args, **kwargs):
        raise IOError

    def readlines(self, *args, **kwargs):
        raise IOError

    def readable(self, *args, **kwargs):
        return False


DISABLED_OS = (
    "kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
    "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod",
    "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir",
)
DISABLED_MODULES = ("ipdb", "joblib", "resource", "psutil", "tkinter")


def disable():
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    builtins.help = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in DISABLED_OS:
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    for name in DISABLED_MODULES:
        sys.modules[name] = None


def main():
    with open("main.py", encoding="utf-8", errors="surrogateescape", newline="") as f:
        program = f.read()
    report = os.fdopen(os.dup(2), "w")
    leave = os._exit
    disable()
    sink = Sink()
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout = sys.stderr = sys.stdin = sink
    try:
        exec(program, {})
        verdict = "passed"
    except BaseException as e:  # as mxeval: SystemExit and KeyboardInterrupt fail too
        verdict = "failed: %s" % (e,)
    sys.stdout, sys.stderr, sys.stdin = saved
    report.write(verdict + "\n")
    report.flush()
    leave(0 if verdict == "passed" else 1)


main()
