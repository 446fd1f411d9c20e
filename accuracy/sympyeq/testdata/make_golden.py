#!/usr/bin/env python3
"""Writes sympy_golden.json.gz: for each pair (a, b), whether prm800k's
are_equal_under_sympy(a, b) holds — sympy.simplify of parse_expr of
"(a)-(b)" with the grader's transformations equals 0 — with the exception
parse_expr or simplify raised, if any. The pairs are the normalised MATH
answers and model answers of accuracy/reasoneval/testdata and generated
families aimed at the parser's and simplify's corners (implicit
multiplication, split symbols, factorials, Python number literals,
decimals against fractions, radicals, nested radicals, polynomial and
rational identities, branch cuts, Float exponents).

Run with a python3 whose sympy is >= 1.13 (the goldens record the
version), pylatexenc importable (--pylatexenc), and the prm800k checkout:

  python3 accuracy/sympyeq/testdata/make_golden.py --prm800k /tmp/prm800k --pylatexenc /tmp/pyl
"""
import argparse
import gzip
import json
import os
import random
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Timeout(Exception):
    pass


def alarm(signum, frame):
    raise Timeout()


def families(rng):
    out = []
    # decimals against fractions and integers
    for q in [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 20, 25, 40, 56, 100, 1000]:
        for p in [1, 2, 3, 5, 7, 13, 17, 99]:
            v = p / q
            for d in [1, 2, 3, 4, 6, 10, 15, 16, 17]:
                out.append(("%d/%d" % (p, q), ("%." + str(d) + "f") % v))
            out.append(("%d/%d" % (p, q), repr(v)))
    for n in [0, 1, 2, 12, 100, 12345]:
        out += [(str(n), "%d.0" % n), (str(n), "%d.00000000000000001" % n), (str(n), "%de0" % n),
                (str(n), "%d." % n), ("%d.0" % n, "%d" % n)]
    out += [("0.1+0.2", "0.3"), ("0.3", "0.1+0.2"), ("1/10", "0.1"), ("0.1", "1/10"), ("1/3", "0.3333333333333333"),
            ("1/3", "0.33333333333333333"), ("2/3", "0.6666666666666666"), ("2/3", "0.6666666666666667"),
            ("sqrt(2)", "1.4142135623730951"), ("sqrt(2)", "1.414213562373095"), ("pi", "3.141592653589793"),
            ("pi", "3.14"), ("2**0.5", "sqrt(2)"), ("4**0.5", "2"), ("2^0.5", "sqrt(2)"), ("8^(1/3)", "2"), ("0.5sqrt(2)", "sqrt(2)/2"),
            ("1.5sqrt(2)", "3sqrt(2)/2"), ("0.1sqrt(2)", "sqrt(2)/10"), ("0.5x", "x/2"), ("0.1x", "x/10"), ("0.3333333333333333x", "x/3"),
            ("x^5", "x^5."), ("x^5.0", "x^5."), ("x^2.0", "x*x"), ("2^3.0", "8"), ("x^0.5", "sqrt(x)")]
    # radicals
    for k in range(1, 8):
        for n in [2, 3, 5, 6, 7, 10, 13, 15]:
            out.append(("%dsqrt(%d)" % (k, n), "sqrt(%d)" % (k * k * n)))
            out.append(("sqrt(%d)/%d" % (n, n), "1/sqrt(%d)" % n))
            out.append(("%dsqrt(%d)" % (k, n), "sqrt(%d)" % (k * k * n + 1)))
    out += [("sqrt(2)+sqrt(3)", "sqrt(5+2sqrt(6))"), ("1+sqrt(2)", "sqrt(3+2sqrt(2))"), ("1/(sqrt(2)-1)", "1+sqrt(2)"),
            ("2/(sqrt(5)+1)", "(sqrt(5)-1)/2"), ("sqrt(6)", "sqrt(2)sqrt(3)"), ("sqrt(2)sqrt(3)", "sqrt(6)"),
            ("sqrt(-4)", "2sqrt(-1)"), ("sqrt(-1)", "i"), ("(-8)^(1/3)", "-2"), ("(-8)^(1/3)", "2(-1)^(1/3)"),
            ("8^(1/3)", "2"), ("12^(1/2)", "2sqrt(3)"), ("2^(1/3)2^(2/3)", "2"), ("sqrt(sqrt(2))", "2^(1/4)"),
            ("(1+sqrt(2))^2", "3+2sqrt(2)"), ("(1+sqrt(2))^2", "3+2sqrt(3)"), ("(sqrt(3)-1)(sqrt(3)+1)", "2"),
            ("sqrt(3)/2", "sqrt(3/4)"), ("sqrt(1/2)", "sqrt(2)/2"), ("pi/2", "pi*0.5"), ("2pi", "pi2"), ("pi^2", "pipi"),
            ("sqrt(pi)", "pi^(1/2)"), ("ln(8)", "3ln(2)"), ("ln(1)", "0"), ("ln(2)+ln(3)", "ln(6)"), ("ln(4)", "2ln(2)"),
            ("(-1)^(1/2)", "sqrt(-1)"), ("sqrt(-1)^2", "-1"), ("sqrt(-2)sqrt(-2)", "-2"), ("sqrt((-2)^2)", "2"),
            ("(-4)^(3/2)", "-8sqrt(-1)"), ("(2-sqrt(3))^(1/2)", "(sqrt(6)-sqrt(2))/2")]
    # factorials and Python literals
    out += [("3!", "6"), ("6", "3!"), ("(3)!", "6"), ("3!!", "3"), ("4!!", "8"), ("0!", "1"), ("5!/3!", "20"), ("x!", "x!"),
            ("(1/2)!", "sqrt(pi)/2"), ("1_000", "1000"), ("0x1f", "31"), ("1e3", "1000"), ("1e-3", "1/1000"), ("07", "0"),
            ("07", "7"), (".5", "1/2"), ("5.", "5"), ("2j", "2sqrt(-1)"), ("2j", "2i"), ("1__0", "10"), ("4210_5", "42105"),
            ("3!x", "6x"), ("x3", "3x"), ("2x", "x2"), ("xy", "yx"), ("x y", "xy"), ("2(x+1)", "2x+2"), ("x(x+1)", "x^2+x"),
            ("(x+1)(x-1)", "x^2-1"), ("(x+1)x", "x^2+x"), ("sqrt(2)x", "xsqrt(2)"), ("sqrt2", "sqrt(2)"), ("2sqrt(2)", "sqrt(8)"),
            ("sqrt(x)^2", "x"), ("sqrt(x^2)", "x"), ("sqrt(1/x)", "1/sqrt(x)"), ("sqrt(4x)", "2sqrt(x)"), ("(x^2)^(1/2)", "x"),
            ("x^(1/2)x^(1/2)", "x"), ("(x^(1/3))^(1/2)", "x^(1/6)"), ("(x^(3/2))^(1/2)", "x^(3/4)"), ("1/x", "x^(-1)"),
            ("(x^2-1)/(x-1)", "x+1"), ("(x^2-y^2)/(x-y)", "x+y"), ("x/x", "1"), ("0x", "0"), ("x-x", "0"),
            ("(x+y)^2", "x^2+2xy+y^2"), ("(x+y)^3", "x^3+3x^2y+3xy^2+y^3"), ("(a+b)/2", "a/2+b/2"), ("ab", "ba"),
            ("2ab", "a2b"), ("a^2b", "ba^2"), ("abab", "a^2b^2"), ("e^2", "ee"), ("e^(i pi)", "-1"), ("i^2", "-1"),
            ("ii", "i^2"), ("1/(1+i)", "(1-i)/2"), ("(1+i)^2", "2i"), ("f(x)", "xf"), ("f(x+1)", "f(1+x)"), ("x(2)", "2x"),
            ("oo", "oo"), ("1/0", "1/0"), ("0/0", "0"), ("nan", "nan"), ("zoo", "zoo"), ("oo-oo", "0"), ("pi", "pi"),
            ("re(2)", "2"), ("im(2)", "0"), ("ln(e)", "1"), ("ln(x^2)", "2ln(x)"), ("sqrt(x y)", "sqrt(x)sqrt(y)"),
            ("x**2", "x^2"), ("x//2", "floor(x/2)"), ("7%3", "1"), ("7//2", "3"), ("2@3", "6"), ("~1", "-2"),
            ("1if1else2", "1"), ("1or2", "1"), ("x=1", "1"), ("x<1", "1"), ("[1]", "1"), ("{1}", "1"), ("(1,2)", "(1,2)"),
            ("1,2", "1,2"), ("", "1"), ("1", ""), ("()", "0"), ("(", "1"), (")", "1"), ("1)", "1"), ("x.y", "1"), ("1#2", "1"),
            ("1$", "1"), ("1?", "1"), ("a²", "a^2"), ("θ", "θ"), ("2θ", "θ+θ"), ("3.0.1", "3"), ("1e", "1"), ("0.[3]", "1/3"),
            ("0.1[6]", "1/6"), ("1.[142857]", "8/7"), ("lambda", "1"), ("x^2^3", "x^8"), ("2^3^2", "512"), ("-2^2", "-4"),
            ("(-2)^2", "4"), ("2^-1", "1/2"), ("2^-x", "1/2^x"), ("x^-1", "1/x")]
    # random polynomial identities in x and y
    for _ in range(150):
        a, b, c = rng.randint(-5, 5), rng.randint(-5, 5), rng.randint(1, 4)
        fac = "(%dx%+d)(x%+d)" % (c, a, b)
        exp = "%dx^2%+dx%+d" % (c, c * b + a, a * b)
        wrong = "%dx^2%+dx%+d" % (c, c * b + a + rng.choice([-1, 1]), a * b)
        out += [(fac, exp), (exp, fac), (fac, wrong)]
    for _ in range(60):
        p, q = rng.randint(1, 9), rng.randint(2, 9)
        out += [("(%dx+%d)/%d" % (p, q, q), "%d/%dx+1" % (p, q)), ("%dy/%d" % (p, q), "%d/%dy" % (p, q)),
                ("(x+%d)^2" % p, "x^2+%dx+%d" % (2 * p, p * p)), ("(x-%d)^3" % p, "(%d-x)^3" % p)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prm800k", required=True)
    ap.add_argument("--pylatexenc")
    args = ap.parse_args()
    if args.pylatexenc:
        sys.path.append(args.pylatexenc)
    sys.path.insert(0, os.path.join(os.path.abspath(args.prm800k), "prm800k"))
    sys.path.insert(0, os.path.join(HERE, "..", "..", "reasoneval", "testdata"))
    import sympy
    from grading import grader
    import recorded
    rng = random.Random(4242)
    pairs = []
    for g, t in recorded.math_pairs(random.Random(3434)):
        a, b = grader._normalize(t), grader._normalize(g)
        if a and b:
            pairs.append((a, b))
    pairs += families(rng)
    signal.signal(signal.SIGALRM, alarm)
    seen, cases = set(), []
    for a, b in pairs:
        if (a, b) in seen:
            continue
        seen.add((a, b))
        expr = f"({a})-({b})"
        allowed = grader.should_allow_eval(expr)
        err, eq = None, False
        signal.alarm(10)
        try:
            diff = grader._sympy_parse(expr)
            eq = bool(sympy.simplify(diff) == 0)
        except Timeout:
            err = "Timeout"
        except Exception as e:
            err = type(e).__name__
        finally:
            signal.alarm(0)
        if err == "Timeout":
            continue
        cases.append({"a": a, "b": b, "allowed": allowed, "zero": eq, "error": err})
    with gzip.GzipFile(os.path.join(HERE, "sympy_golden.json.gz"), "wb", mtime=0) as f:
        f.write(json.dumps({"sympy_version": sympy.__version__, "cases": cases}, ensure_ascii=False).encode())
    print(len(cases), "cases,", sum(c["zero"] for c in cases), "zero,", sum(c["error"] is not None for c in cases), "raise")


if __name__ == "__main__":
    main()
