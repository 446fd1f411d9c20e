"""Recorded model outputs for the reasoning scorers' goldens (our own text).

make_goldens.py imports this module; it builds, from a fixed seed, outputs
of the kind DeepSeek-R1 and gpt-oss-120b write for each data set family of
mlcommons/inference language/deepseek-r1 and language/gpt-oss-120b, hard
cases included: answers in every format the parsers meet, several answers
in one output, LaTeX variants, truncated reasoning (no final answer),
Harmony channel markers (intact, corrupted, missing), code with and
without fences, code that loops forever, fails or prints the wrong thing.

The MATH-500 ground truths are the answers of the 500 MATH test problems
OpenAI's PRM800K split names (math500_answers.json; the MATH data set is
MIT licensed).
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

THINK = [
    "Okay, let me work through this carefully.",
    "Let me recall the relevant facts first.",
    "Hmm, I need to check each option.",
    "First, restate the problem in my own words.",
    "Wait, that does not look right. Let me redo the computation.",
    "So the key quantity is the ratio of the two rates.",
    "Let me double-check with a quick estimate.",
]


def reasoning(rng, n=None):
    n = rng.randint(1, 4) if n is None else n
    return " ".join(rng.choice(THINK) for _ in range(n))


def r1(rng, body, think=True, truncated=False):
    """A DeepSeek-R1 style response: <think> reasoning, then the answer."""
    t = "<think>\n" + reasoning(rng) + "\n"
    if truncated:
        return t + reasoning(rng, 2)
    return (t + "</think>\n\n" if think else "") + body


def harmony(rng, final, analysis=None, marker="<|channel|>final<|message|>", end="<|return|>"):
    """A gpt-oss Harmony response as decoded with special tokens kept."""
    a = "<|channel|>analysis<|message|>" + (analysis if analysis is not None else reasoning(rng)) + "<|end|>"
    if final is None:
        return a  # truncated: no final channel
    return a + "<|start|>assistant" + marker + final + end


# ---------------------------------------------------------------- choice


def choice_outputs(rng, letters, n):
    """Multiple-choice outputs over the options letters (ABCD or ABCDEFGHIJ),
    each with the letter it means to answer."""
    L = letters
    out = []

    def pick():
        return rng.choice(L)

    forms = [
        lambda c: "ANSWER: %s" % c,
        lambda c: "Answer: %s" % c,
        lambda c: "answer: %s" % c.lower(),
        lambda c: "FINAL ANSWER: (%s)" % c,
        lambda c: "Final Answer: %s." % c,
        lambda c: "**Answer: %s**" % c,
        lambda c: "The correct option is therefore %s.\n\nANSWER: %s" % (c, c),
        lambda c: "ANSWER:%s" % c,
        lambda c: "ANSWER = %s" % c,
        lambda c: "Answer: ( %s )" % c,
        lambda c: "Answer: %s) because of the reasoning above" % c,
        lambda c: "ANSWER: %s\n" % c,
        lambda c: "FINALANSWER: %s" % c,
        lambda c: "Final  Answer:\n\n%s" % c,
        lambda c: "The answer is %s." % c,                      # no keyword match
        lambda c: "ANSWER: Option %s" % c,                       # 'O' starts a word
        lambda c: "I think it is %s, so ANSWER: %s" % (pick(), c),
        lambda c: "ANSWER: %s or %s" % (c, pick()),
        lambda c: "ANSWERS: %s" % c,                              # \b fails inside ANSWERS
        lambda c: "Answer: \\boxed{%s}" % c,
        lambda c: "\\boxed{%s}" % c,
        lambda c: "answer - %s" % c,
        lambda c: "['ANSWER: %s']" % c,
        lambda c: "ANSWER: %s\\nExplanation follows" % c,       # literal backslash-n
        lambda c: "ANSWER: K",                                    # out of range
        lambda c: "ANSWER: %sb" % c,                              # letter then a letter
        lambda c: "Among A and B I keep %s.\nANSWER: %s" % (c, c),
        lambda c: "%s" % c,
        lambda c: "(%s)" % c,
        lambda c: "It must be %s" % c,
        lambda c: "ANSWER: I cannot decide",
        lambda c: "ANSWER : %s" % c,
        lambda c: "Answer. %s" % c,
        lambda c: "Answer %s" % c,
    ]
    harmony_finals = [
        lambda c: "%s" % c,
        lambda c: "**%s**" % c,
        lambda c: "**Answer: %s**" % c,
        lambda c: "Answer: %s" % c,
        lambda c: "The answer is %s." % c,
        lambda c: "(%s) is correct." % c,
        lambda c: "%s) %s" % (c, "the second statement"),
        lambda c: "Answer. %s" % c,
        lambda c: "The final answer: %s" % c,
        lambda c: "1. %s" % c,
        lambda c: "%s\n\nExplanation: a gives more." % c,
        lambda c: "Option %s" % c,
        lambda c: "Therefore the best choice is %s and not %s." % (c, pick()),
        lambda c: "['%s']" % c,
        lambda c: "**Final answer:** %s" % c,
        lambda c: "It is none of them",
        lambda c: "answer %s" % c.lower(),
        lambda c: " \n %s" % c,
        lambda c: "42",
    ]
    meant = []
    for i in range(n):
        c = pick()
        meant.append(c)
        k = i % 4
        if k == 0:  # DeepSeek-R1 style
            out.append(r1(rng, rng.choice(forms)(c)))
        elif k == 1:  # Harmony with a final channel
            marker = rng.choice(["<|channel|>final<|message|>"] * 6 + [
                "<|channel|>final \u660e<|message|>", "<|channel|>final537<|message|>"])
            end = rng.choice(["<|return|>"] * 4 + ["", "<|end|>"])
            ana = reasoning(rng) + rng.choice(["", " Maybe ANSWER: %s at first." % pick(), " Answer: %s?" % pick()])
            out.append(harmony(rng, rng.choice(harmony_finals)(c), analysis=ana, marker=marker, end=end))
        elif k == 2:  # truncated or odd
            kind = rng.randrange(5)
            if kind == 0:
                out.append(r1(rng, "", truncated=True))
            elif kind == 1:
                out.append(harmony(rng, None, analysis=reasoning(rng) + " ANSWER: %s" % c))
            elif kind == 2:
                out.append("")
            elif kind == 3:
                out.append(r1(rng, rng.choice(forms)(c), think=False) + "  \n\t")
            else:
                out.append(harmony(rng, rng.choice(forms)(c)))
        else:  # several answers, last wins (or not)
            out.append(r1(rng, "ANSWER: %s\n\nWait, reconsider.\n\n%s" % (pick(), rng.choice(forms)(c))))
    return list(zip(out, [c for c in meant]))


# ---------------------------------------------------------------- AIME


def aime_outputs(rng, n):
    out = []
    truths = []
    for i in range(n):
        gt = rng.randint(0, 999)
        wrong = (gt + rng.randint(1, 50)) % 1000
        v = rng.choice([gt, gt, gt, wrong])
        forms = [
            "\\boxed{%d}" % v,
            "The answer is $\\boxed{%d}$." % v,
            "\\boxed{ %d }" % v,
            "\\boxed{%03d}" % v,
            "Answer: %d" % v,
            "answer: %d" % v,
            "Answer:%d" % v,
            "Answer: %d." % v,               # (?!\.) after the digits
            "Answer: %d.5" % v,
            "Answer: %d\n" % v,
            "\\boxed{%d} and the final Answer: %d" % (wrong, v),
            "Answer: %d\n\nso \\boxed{%d}" % (v, wrong),
            "\\boxed{%d}\\boxed{%d}" % (wrong, v),
            "\\boxed{%d + 1}" % v,
            "\\boxed{\\text{%d}}" % v,
            "\\boxed{%d}" % (v + 1000),
            "\\boxed{-%d}" % v,
            "Answer: %d%d" % (v, v),
            "Answer: ٣",                       # an Arabic-Indic digit
            "Answer: %d (mod 1000)" % v,
            "\\boxed{%d.0}" % v,
            "Answer:\n%d" % v,
            "ANSWER: %d" % v,
            "Answer: 1000",
            "\\boxed {%d}" % v,
            "\\boxed{%d}\n</think>\nAnswer: %d" % (v, wrong),
        ]
        body = rng.choice(forms)
        kind = i % 7
        if kind == 5:
            text = r1(rng, "", truncated=True)
        elif kind == 6:
            text = harmony(rng, "The result is " + body)
        else:
            text = r1(rng, reasoning(rng) + " " + body)
        out.append(text)
        gts = [str(gt), str(gt), " %d " % gt, "%03d" % gt, str(gt)]
        g = rng.choice(gts)
        if i % 53 == 0:
            g = "12.0"          # int() of a float string fails
        if i % 71 == 0:
            g = None            # missing
        truths.append(g)
    return out, truths


# ---------------------------------------------------------------- MATH-500


def math_answers():
    with open(os.path.join(HERE, "math500_answers.json"), encoding="utf-8") as f:
        return json.load(f)


def _num_variants(rng, s):
    """Rewrites of a plain integer answer."""
    v = int(s)
    out = [s, "%d.0" % v, "%d.00" % v, " %s " % s, "{%s}" % s, "\\text{%s}" % s, "%s\\%%" % s,
           "\\$%s" % s, "%s^\\circ" % s, "%s^{\\circ}" % s, "%s \\text{ cm}" % s, "%s\\text{ degrees}" % s,
           "x = %s" % s, "x=%s" % s, "%d" % (v + 1), "%d" % (-v), "%s.5" % s, "\\frac{%d}{1}" % v,
           "\\frac{%d}{2}" % (2 * v), "%d/2" % (2 * v), "%d \\cdot 1" % v, "%s+0" % s, "\\sqrt{%d}" % (v * v),
           "%s\\,\\text{units}" % s, "%s \\mbox{ inches}^2" % s, "\\mathbf{%s}" % s, "%s \\text{ and } 2" % s]
    if v >= 1000:
        out.append("{:,}".format(v))
        out.append("{:,}".format(v).replace(",", ",\\!"))
        out.append("{:,}".format(v).replace(",", "{,}"))
    if v != 0:
        out.append("%d\\times 10^0" % v)
        out.append("%d e0" % v)
    return out


def _generic_variants(rng, s):
    out = [s, s.replace(" ", ""), " ".join(s), s.replace("\\frac", "\\dfrac"), s.replace("\\frac", "\\tfrac"),
           s.replace("\\left", "").replace("\\right", ""), "\\left(" + s + "\\right)", "$" + s + "$",
           s.replace("\\sqrt{", "\\sqrt {"), s + ".", s.upper(), "\\text{" + s + "}", "{" + s + "}",
           s.replace("\\pi", "\\pi "), s.replace("{", "{ ").replace("}", " }"), s.replace("\\", "")]
    return out


def math_pairs(rng):
    """(given, ground truth) pairs for grade_answer: every MATH-500 answer
    against rewrites of itself (equal, equivalent, wrong)."""
    answers = math_answers()
    pairs = []
    for gt in answers:
        s = gt.strip()
        if s.lstrip("-").isdigit():
            cands = _num_variants(rng, s)
            pick = rng.sample(cands, min(4, len(cands)))
        else:
            cands = _generic_variants(rng, s)
            pick = rng.sample(cands, min(3, len(cands)))
        for g in pick:
            pairs.append([g, gt])
    pairs.extend([[g, t] for g, t in HARD_MATH])
    return pairs


# Hand-written pairs: the normaliser's and sympy's corners.
HARD_MATH = [
    ("\\frac{1}{2}", "0.5"), ("0.5", "\\frac{1}{2}"), ("1/2", "\\frac12"), ("\\frac{2}{4}", "\\frac{1}{2}"),
    ("2/4", "1/2"), ("\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}"), ("\\frac{1}{\\sqrt{3}}", "\\frac{\\sqrt{3}}{3}"),
    ("2\\sqrt{2}", "\\sqrt{8}"), ("\\sqrt{8}", "2\\sqrt{2}"), ("\\sqrt{117}", "3\\sqrt{13}"), ("3\\sqrt{13}", "\\sqrt{117}"),
    ("(x+1)^2", "x^2+2x+1"), ("x^2+2x+1", "(x+1)^2"), ("x(x+1)", "x^2+x"), ("x^2+x", "x(x+1)"),
    ("2(x+1)", "2x+2"), ("2x+2", "2(x+1)"), ("\\frac{x+1}{2}", "\\frac{x}{2}+\\frac{1}{2}"),
    ("10^6", "1000000"), ("1000000", "10^6"), ("2^{10}", "1024"), ("1024", "2^{10}"), ("2^10", "1024"),
    ("6-5i", "6 - 5i"), ("-5i+6", "6-5i"), ("6+(-5)i", "6-5i"), ("i", "\\sqrt{-1}"),
    ("\\pi", "3.14159"), ("3.14", "\\pi"), ("2\\pi", "\\pi \\cdot 2"), ("\\frac{\\pi}{2}", "\\frac12\\pi"),
    ("\\frac{\\pi}{2}", "0.5\\pi"), ("90", "\\frac{\\pi}{2}"), ("\\pi/2", "\\frac{\\pi}{2}"),
    ("(3, \\frac{\\pi}{2})", "\\left( 3, \\frac{\\pi}{2} \\right)"), ("(3,\\pi/2)", "\\left( 3, \\frac{\\pi}{2} \\right)"),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\frac{\\pi}{2})"), ("[3, \\frac{\\pi}{2}]", "\\left( 3, \\frac{\\pi}{2} \\right)"),
    ("(\\frac{\\pi}{2}, 3)", "\\left( 3, \\frac{\\pi}{2} \\right)"), ("3, \\frac{\\pi}{2}", "\\left( 3, \\frac{\\pi}{2} \\right)"),
    ("1, -2", "1,-2"), ("-2, 1", "1,-2"), ("1 and -2", "1,-2"), ("1 or -2", "1,-2"), ("\\{1, -2\\}", "1,-2"),
    ("3, 5, 7", "3,5,7"), ("7, 5, 3", "3, 5, 7"), ("(-\\infty, 0]", "(-\\infty,0]"), ("(-\\infty, 0)", "(-\\infty, 0]"),
    ("(-\\infty,2)\\cup(3,\\infty)", "(-\\infty, 2) \\cup (3, \\infty)"), ("x \\in [-2,7]", "[-2,7]"), ("[-2,7]", "x \\in [-2,7]"),
    ("\\$32,348", "\\$32,\\!348"), ("32348", "\\$32,\\!348"), ("32,348", "32348"), ("1,000,000", "1000000"),
    ("10,080", "10,\\!080"), ("1,2", "12"), ("12", "1,2"), ("50\\%", "50"), ("50", "50\\%"), ("0.5", "50\\%"),
    ("\\text{(C)}", "\\text{(C)}"), ("C", "\\text{(C)}"), ("(C)", "\\text{(C)}"), ("\\text{C}", "\\text{(C)}"),
    ("Evelyn", "\\text{Evelyn}"), ("evelyn", "\\text{Evelyn}"), ("\\textbf{Evelyn}", "\\text{Evelyn}"),
    ("\\text{east}", "\\text{east}"), ("East", "\\text{east}"), ("e", "\\text{east}"),
    ("90^\\circ", "90^\\circ"), ("90", "90^\\circ"), ("90^{\\circ}", "90^\\circ"), ("90 degrees", "90^\\circ"),
    ("\\frac{270}{7}", "\\frac{270}7\\text{ degrees}"), ("270/7", "\\frac{270}7\\text{ degrees}"),
    ("137\\frac{1}{2}", "137 \\frac{1}{2}"), ("137.5", "137 \\frac{1}{2}"), ("\\frac{275}{2}", "137 \\frac{1}{2}"),
    ("137 1/2", "137 \\frac{1}{2}"), ("1\\frac{4}{5}", "1\\frac{4}{5}"), ("\\frac{9}{5}", "1\\frac{4}{5}"), ("1.8", "1\\frac{4}{5}"),
    ("y = 2x + 3", "y = 2x + 3"), ("2x+3", "y = 2x + 3"), ("y=2x+3", "y = 2x + 3"), ("y = 3 + 2x", "y = 2x + 3"),
    ("\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}", "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}"),
    ("\\begin{pmatrix}-1/3\\\\2/3\\\\5/3\\end{pmatrix}", "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}"),
    ("\\begin{pmatrix} -\\frac13 \\\\ \\frac23 \\\\ \\frac53 \\end{pmatrix}", "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}"),
    ("\\begin{bmatrix} -1 & 0 \\\\ 0 & -1 \\end{bmatrix}", "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}"),
    ("p - q", "p - q"), ("-q+p", "p - q"), ("p-q", "p - q"), ("q - p", "p - q"),
    ("\\frac{11+9a}{20}", "\\frac{11+9a}{20}"), ("\\frac{9a+11}{20}", "\\frac{11+9a}{20}"), ("0.55+0.45a", "\\frac{11+9a}{20}"),
    ("1 \\pm \\sqrt{19}", "1 \\pm \\sqrt{19}"), ("1+\\sqrt{19}, 1-\\sqrt{19}", "1 \\pm \\sqrt{19}"),
    ("\\sqrt[3]{2}", "2^{1/3}"), ("2^{1/3}", "\\sqrt[3]{2}"), ("\\sqrt{2}^3", "2\\sqrt{2}"),
    ("0.333", "\\frac{1}{3}"), ("0.3333333333333333", "\\frac{1}{3}"), ("0.\\overline{3}", "\\frac{1}{3}"), (".5", "\\frac12"),
    ("0.1+0.2", "0.3"), ("1.5", "\\frac{3}{2}"), ("2.5", "\\frac52"), ("2.50", "\\frac{5}{2}"), ("-0.75", "-\\frac{3}{4}"),
    ("5\\sqrt{2}/2", "\\frac{5\\sqrt{2}}{2}"), ("\\frac{5}{\\sqrt{2}}", "\\frac{5\\sqrt{2}}{2}"), ("5/\\sqrt2", "\\frac{5\\sqrt{2}}{2}"),
    ("\\sqrt{2}+\\sqrt{3}", "\\sqrt{5+2\\sqrt{6}}"), ("\\sqrt{5+2\\sqrt{6}}", "\\sqrt{2}+\\sqrt{3}"),
    ("1+\\sqrt{2}", "\\sqrt{3+2\\sqrt{2}}"), ("\\frac{1}{\\sqrt{2}-1}", "1+\\sqrt{2}"), ("\\frac{2}{\\sqrt{5}+1}", "\\frac{\\sqrt{5}-1}{2}"),
    ("\\ln 8", "3\\ln 2"), ("\\log_2 8", "3"), ("e^2", "e \\cdot e"), ("ee", "e^2"), ("\\pi^2", "\\pi \\pi"),
    ("xy", "yx"), ("x y", "y x"), ("ab", "a b"), ("2ab", "2a b"), ("a^2b", "ba^2"),
    ("\\frac{1}{x}", "x^{-1}"), ("1/x", "\\frac{1}{x}"), ("\\frac{x^2-1}{x-1}", "x+1"), ("x+1", "\\frac{x^2-1}{x-1}"),
    ("\\sqrt{x^2}", "x"), ("|x|", "x"), ("\\sqrt{x}\\sqrt{x}", "x"), ("(x-1)(x+1)", "x^2-1"),
    ("3!", "6"), ("6", "3!"), ("4!/2", "12"), ("\\binom{5}{2}", "10"), ("\\dbinom{5}{2}", "10"),
    ("\\infty", "\\infty"), ("inf", "\\infty"), ("oo", "\\infty"), ("\\emptyset", "\\emptyset"), ("\\varnothing", "\\emptyset"),
    ("\\mathbb{R}", "(-\\infty,\\infty)"), ("(-\\infty,\\infty)", "\\mathbb{R}"),
    ("52_8", "52_8"), ("52", "52_8"), ("42_{8}", "52_8"), ("1011_2", "1011_2"), ("11", "1011_2"),
    ("\\text{even}", "\\text{even}"), ("even", "\\text{even}"), ("\\text{Even}", "\\text{even}"), ("odd", "\\text{even}"),
    ("x=5", "5"), ("5", "x=5"), ("k = 5", "5"), ("abc = 5", "5"), ("x = y = 5", "5"),
    ("", "5"), (" ", "5"), ("\\text{}", "5"), ("{}", "5"), ("\\boxed{5}", "5"),
    ("-50", "-50"), ("- 50", "-50"), ("−50", "-50"), ("-(50)", "-50"), ("(-50)", "-50"),
    ("1,-2", "1, -2"), ("(1,-2)", "1,-2"), ("\\{-2,1\\}", "\\{1,-2\\}"),
    ("\\frac{a}{b}", "a/b"), ("\\frac{ab}{c}", "ab/c"), ("\\frac{\\sqrt{21}}{5}", "\\sqrt{21}/5"), ("\\sqrt{21}/5", "\\frac{\\sqrt{21}}{5}"),
    ("\\frac{20000}{\\pi}", "\\frac{20000}{\\pi}"), ("20000/\\pi", "\\frac{20000}{\\pi}"), ("6366.2", "\\frac{20000}{\\pi}"),
    ("\\frac{3}{56}", "\\frac{3}{56}"), ("3/56", "\\frac{3}{56}"), ("\\frac{6}{112}", "\\frac{3}{56}"), ("0.0536", "\\frac{3}{56}"),
    ("1 million", "1000000"), ("2 billion", "2000000000"), ("5 \\text{ seconds}", "5"), ("5 hours", "5"), ("5 mph", "5"),
    ("\\frac{\\sqrt{3}}{2}", "\\frac{1}{2}\\sqrt{3}"), ("\\frac12\\sqrt3", "\\frac{\\sqrt3}2"), ("\\sqrt3/2", "\\frac{\\sqrt{3}}{2}"),
    ("2\\sqrt{5}", "2 \\sqrt{5}"), ("2 \\sqrt 5", "2\\sqrt{5}"), ("\\sqrt{20}", "2\\sqrt{5}"), ("4.47", "2\\sqrt{5}"),
    ("11\\sqrt2", "11\\sqrt2"), ("11\\sqrt{2}", "11\\sqrt2"), ("\\sqrt{242}", "11\\sqrt2"),
    ("\\tfrac{17}{50}", "\\dfrac{17}{50}"), ("0.34", "\\dfrac{17}{50}"), ("34\\%", "\\dfrac{17}{50}"),
    ("\\frac{14}{3}", "\\frac{14}{3}"), ("4\\frac{2}{3}", "\\frac{14}{3}"), ("4.\\overline{6}", "\\frac{14}{3}"), ("14/3", "\\frac{14}{3}"),
    ("\\left[ \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right]", "\\left[ \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right]"),
    ("[\\pi^2/8, 5\\pi^2/4]", "\\left[ \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right]"),
    ("(0,9) \\cup (9,36)", "(0,9) \\cup (9,36)"), ("(0,9)U(9,36)", "(0,9) \\cup (9,36)"),
    ("\\cot x", "\\cot x"), ("\\frac{\\cos x}{\\sin x}", "\\cot x"), ("x", "\\cot x"),
    ("a \\le b", "a \\leq b"), ("a<b", "a \\lt b"), ("\\{1,2\\}", "\\{2,1\\}"),
    ("\\mathrm{C}", "\\text{C}"), ("\\textit{C}", "C"), ("\\emph{C}", "C"), ("\\operatorname{C}", "C"),
    ("\\alpha", "\\alpha"), ("\\theta", "\\theta"), ("2\\theta", "\\theta+\\theta"), ("\\theta\\phi", "\\phi\\theta"),
    ("\\frac{1}{2}x", "\\frac{x}{2}"), ("x/2", "\\frac{x}{2}"), ("0.5x", "\\frac{x}{2}"), ("\\frac x2", "x/2"),
    ("10\\sqrt{10}", "10 \\sqrt{10}"), ("\\sqrt{1000}", "10\\sqrt{10}"), ("1000^{1/2}", "10\\sqrt{10}"), ("1000^(1/2)", "10\\sqrt{10}"),
    ("2^(1/2)", "\\sqrt{2}"), ("2**0.5", "\\sqrt{2}"), ("2^0.5", "\\sqrt{2}"),
    ("3\\sqrt{3}", "\\sqrt{27}"), ("\\sqrt{3}^3", "3\\sqrt{3}"), ("27^{1/2}", "3\\sqrt{3}"),
    ("1e3", "1000"), ("1E3", "1000"), ("1.0e3", "1000"), ("10^3", "1000"),
    ("2 3/4", "\\frac{11}{4}"), ("2\\ 3/4", "\\frac{11}{4}"), ("-2 3/4", "-\\frac{11}{4}"),
    ("(1,2),(3,4)", "(1,2),(3,4)"), ("(1,2), (3,4)", "(3,4),(1,2)"), ("((1,2))", "(1,2)"),
    ("\\frac{-1}{2}", "-\\frac{1}{2}"), ("-\\frac12", "\\frac{-1}{2}"), ("\\frac{1}{-2}", "-\\frac12"),
    ("n", "n"), ("N", "n"), ("2n", "n+n"), ("n^2+n", "n(n+1)"), ("\\frac{n(n+1)}{2}", "\\frac{n^2+n}{2}"),
    ("f(x)", "f(x)"), ("g(x)", "f(x)"), ("\\sin(x)", "\\sin x"), ("\\sin^2 x + \\cos^2 x", "1"),
    ("4\\pi", "4 \\pi"), ("12.566", "4\\pi"), ("\\pi4", "4\\pi"), ("4pi", "4\\pi"), ("4 \\cdot \\pi", "4\\pi"),
    ("288\\pi", "288 \\pi"), ("288\\pi \\text{ cm}^3", "288\\pi"), ("904.78", "288 \\pi"),
    ("\\frac{7}{4}", "1.75"), ("1.75", "\\frac{7}{4}"), ("7/4", "1.75"), ("1.750", "7/4"),
    ("12.0", "12"), ("12.00001", "12"), ("11.9999999", "12"), ("12.", "12"), ("012", "12"), ("0012.0", "12"),
    ("-0", "0"), ("0.0", "0"), ("+5", "5"), ("5+", "5"), ("\\pm 5", "5"), ("5 \\pm 0", "5"),
    ("\\sqrt{-4}", "2i"), ("2i", "\\sqrt{-4}"), ("i^2", "-1"), ("-1", "i^2"),
    ("1+i", "i+1"), ("(1+i)^2", "2i"), ("\\frac{1}{i}", "-i"), ("e^{i\\pi}", "-1"),
    ("x^{2}", "x^2"), ("x^2", "x\\cdot x"), ("x^3", "x^{3}"), ("x^{10}", "x^10"), ("x^2^3", "x^8"), ("2^2^3", "256"),
    ("\\text{(A)}", "A"), ("\\text{(A)}", "(A)"), ("(A)", "\\text{(A)}"), ("\\textbf{(A)}", "\\text{(A)}"),
    ("\\frac{3}{2}\\text{ hours}", "\\frac32"), ("\\$1.50", "1.5"), ("1.50", "\\$1.5"), ("\\$18.90", "18.90"), ("18.9", "\\$18.90"),
    ("\\frac{\\sqrt{2}}{2}", "\\frac{1}{\\sqrt{2}}"), ("\\frac{1}{\\sqrt{2}}", "\\frac{\\sqrt2}{2}"), ("0.7071", "\\frac{\\sqrt{2}}{2}"),
    ("\\sqrt{\\frac{1}{2}}", "\\frac{\\sqrt{2}}{2}"), ("(\\sqrt{2})/2", "\\frac{\\sqrt{2}}{2}"),
]


# ---------------------------------------------------------------- boxed math outputs


def math_outputs(rng, n):
    answers = math_answers()
    out, truths = [], []
    for i in range(n):
        gt = answers[i % len(answers)]
        s = gt
        if s.lstrip("-").isdigit():
            cand = rng.choice(_num_variants(rng, s))
        else:
            cand = rng.choice(_generic_variants(rng, s))
        k = i % 9
        if k == 0:
            text = r1(rng, "The final answer is $\\boxed{%s}$." % cand)
        elif k == 1:
            text = r1(rng, "\\boxed{%s}" % cand)
        elif k == 2:
            text = r1(rng, "First \\boxed{%s}, but wait, it is \\boxed{%s}." % ("17", cand))
        elif k == 3:
            text = r1(rng, "", truncated=True) + " so far \\boxed{" + cand  # unclosed
        elif k == 4:
            text = harmony(rng, "**Answer:** $\\boxed{%s}$" % cand)
        elif k == 5:
            text = r1(rng, "Answer: %s" % cand)  # no box
        elif k == 6:
            text = r1(rng, "\\boxed{\\boxed{%s}}" % cand)
        elif k == 7:
            text = r1(rng, "\\boxed{%s} \\quad \\text{and } \\boxed{}" % cand)
        else:
            text = r1(rng, "$$\\boxed{ %s }$$\n\n" % cand)
        out.append(text)
        truths.append(gt)
    return out, truths


# ---------------------------------------------------------------- LiveCodeBench


def code_outputs(rng, problems, n):
    """Outputs over the synthetic problems: (text, question_id)."""
    out = []
    ids = sorted(problems)
    for i in range(n):
        qid = ids[i % len(ids)]
        p = problems[qid]
        sol = rng.choice(p["solutions"])
        wrap = i % 11
        if wrap == 0:
            text = r1(rng, "Here is my solution.\n\n```python\n%s\n```\n" % sol)
        elif wrap == 1:
            text = r1(rng, "```python\n%s```\n\nand a second try:\n```python\nprint('x')\n```" % sol)
        elif wrap == 2:
            text = r1(rng, "```\n%s\n```" % sol)
        elif wrap == 3:
            text = harmony(rng, "Solution:\n```python\n%s\n```" % sol,
                           analysis="Draft:\n```python\nprint('draft')\n```\n" + reasoning(rng))
        elif wrap == 4:
            text = harmony(rng, "```py\n%s\n```" % sol)
        elif wrap == 5:
            text = harmony(rng, "Code:\n```\npython\n%s\n```" % sol)
        elif wrap == 6:
            text = harmony(rng, None, analysis="```python\n%s\n```" % sol)
        elif wrap == 7:
            text = r1(rng, "```python\n" + sol)  # truncated: no closing fence
        elif wrap == 8:
            text = r1(rng, "```Python\n%s\n```" % sol)
        elif wrap == 9:
            text = harmony(rng, "No code, sorry.", analysis="```python\n%s\n```" % sol)
        else:
            text = r1(rng, "```python %s```" % sol.replace("\n", "\n"))
        out.append((text, qid))
    return out


# ---------------------------------------------------------------- LiveCodeBench problems

# Synthetic problems in the code_generation_lite row format (our own
# statements and tests). Each has solutions a model might write: right,
# wrong, slow, crashing.
LCB_PROBLEMS = [
    {
        "question_id": "abc001_a", "platform": "atcoder", "fn": None,
        "public": [("3 4\n", "7\n"), ("10 -2\n", "8\n")],
        "private": [("0 0\n", "0\n"), ("1000000000 1000000000\n", "2000000000\n")],
        "solutions": [
            "a, b = map(int, input().split())\nprint(a + b)",
            "import sys\na, b = map(int, sys.stdin.read().split())\nprint(a+b)",
            "def main():\n    a, b = map(int, input().split())\n    print(a + b)\n\nif __name__ == '__main__':\n    main()",
            "a, b = map(int, input().split())\nprint(a - b)",
            "a, b = map(int, input().split())\nprint(float(a + b))",
            "a, b = map(int, input().split())\nprint(a + b, end='   ')",
            "a, b = map(int, input().split())\nprint(a + b)\nprint()",
            "a, b = map(int, input().split())\nprint(a + b)\nprint('debug')",
            "while True:\n    pass",
            "x = 1 / 0",
            "a, b = map(int, input().split(\n",
            "import sys\ndata = sys.stdin.buffer.read().split()\nprint(int(data[0]) + int(data[1]))",
            "import sys\na, b = map(int, sys.stdin.readline().split())\nsys.stdout.write(str(a + b) + '\\n')",
            "a, b = map(int, input().split())\nif a == 0:\n    exit()\nprint(a + b)",
            "import os\nos.system('echo hi')\na, b = map(int, input().split())\nprint(a + b)",
            "a, b = map(int, input().split())\nprint(a + b)\nimport sys\nsys.exit(0)",
            "a, b = map(int, input().split())\nc = input()\nprint(a + b)",
            "print(sum(map(int, open(0).read().split())))",
        ],
    },
    {
        "question_id": "abc002_b", "platform": "atcoder", "fn": None,
        "public": [("3\n3 1 2\n", "1 2 3\n")],
        "private": [("1\n5\n", "5\n"), ("4\n-1 -1 0 9\n", "-1 -1 0 9\n")],
        "solutions": [
            "n = int(input())\na = sorted(map(int, input().split()))\nprint(*a)",
            "n = int(input())\na = list(map(int, input().split()))\na.sort()\nprint(' '.join(map(str, a)))",
            "n = int(input())\na = list(map(int, input().split()))\nprint(*a)",
            "n = int(input())\na = sorted(map(int, input().split()))\nprint(a)",
            "import sys\nlines = sys.stdin.readlines()\nprint(*sorted(map(int, lines[1].split())))",
            "n = int(input())\na = sorted(map(int, input().split()))\nfor x in a:\n    print(x)",
            "import time\ntime.sleep(100)",
            "n = int(input())\na = sorted(map(int, input().split()))\nprint(*a, sep='  ')",
        ],
    },
    {
        "question_id": "1873_a", "platform": "codeforces", "fn": None,
        "public": [("2\n1 3\n2 2\n", "0.333333\n1.000000\n")],
        "private": [("1\n1 8\n", "0.125000\n")],
        "solutions": [
            "t = int(input())\nfor _ in range(t):\n    a, b = map(int, input().split())\n    print('%.6f' % (a / b))",
            "t = int(input())\nfor _ in range(t):\n    a, b = map(int, input().split())\n    print(a / b)",
            "t = int(input())\nfor _ in range(t):\n    a, b = map(int, input().split())\n    print(round(a / b, 6))",
            "t = int(input())\nfor _ in range(t):\n    a, b = map(int, input().split())\n    print(f'{a/b:.6f}')\n    while True:\n        try:\n            pass\n        except BaseException:\n            pass",
            "t = int(input())\nout = []\nfor _ in range(t):\n    a, b = map(int, input().split())\n    out.append('{:.6f}'.format(a / b))\nprint('\\n'.join(out))",
        ],
    },
    {
        "question_id": "two-sum", "platform": "leetcode", "fn": "twoSum",
        "starter": "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
        "public": [("[2,7,11,15]\n9", "[0, 1]"), ("[3,2,4]\n6", "[1, 2]")],
        "private": [("[3,3]\n6", "[0, 1]")],
        "solutions": [
            "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i",
            "class Solution:\n    def twoSum(self, nums, target):\n        for i in range(len(nums)):\n            for j in range(i + 1, len(nums)):\n                if nums[i] + nums[j] == target:\n                    return (i, j)",
            "class Solution:\n    def twoSum(self, nums, target):\n        for i in range(len(nums)):\n            for j in range(i + 1, len(nums)):\n                if nums[i] + nums[j] == target:\n                    return [j, i]",
            "class Solution:\n    def two_sum(self, nums, target):\n        return [0, 1]",
            "class Solution:\n    def twoSum(self, nums, target):\n        while True:\n            pass",
            "class Solution:\n    def twoSum(self, nums, target):\n        return [nums.index(x) for x in nums if target - x in nums][:2]",
            "from typing import List\nclass Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        d = {v: i for i, v in enumerate(nums)}\n        for i, v in enumerate(nums):\n            j = d.get(target - v)\n            if j is not None and j != i:\n                return [i, j]",
            "class Solution:\n    def twoSum(self, nums, target):\n        raise ValueError('no')",
            "class Solution:\n    def twoSum(self, nums, target):\n        print('thinking')\n        return [0, 1] if nums[0] + nums[1] == target else [1, 2]",
        ],
    },
    {
        "question_id": "count-vowels", "platform": "leetcode", "fn": "countVowels",
        "starter": "class Solution:\n    def countVowels(self, s: str) -> int:\n        ",
        "public": [("\"hello\"", "2")],
        "private": [("\"sky\"", "0"), ("\"AEIOUaeiou\"", "10")],
        "solutions": [
            "class Solution:\n    def countVowels(self, s: str) -> int:\n        return sum(c in 'aeiouAEIOU' for c in s)",
            "class Solution:\n    def countVowels(self, s: str) -> int:\n        return sum(c in 'aeiou' for c in s)",
            "class Solution:\n    def countVowels(self, s):\n        return float(sum(c in 'aeiouAEIOU' for c in s))",
            "class Solution:\n    def countVowels(self, s):\n        return str(sum(c in 'aeiouAEIOU' for c in s))",
            "class Solution:\n    def countVowels(self, s):\n        return len([c for c in s.lower() if c in set('aeiou')])",
            "def countVowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)",
        ],
    },
    {
        "question_id": "is-even", "platform": "leetcode", "fn": "isEven",
        "starter": "class Solution:\n    def isEven(self, n: int) -> bool:\n        ",
        "public": [("4", "true")],
        "private": [("7", "false"), ("0", "true")],
        "solutions": [
            "class Solution:\n    def isEven(self, n: int) -> bool:\n        return n % 2 == 0",
            "class Solution:\n    def isEven(self, n):\n        return 1 - n % 2",
            "class Solution:\n    def isEven(self, n):\n        return n % 2",
            "class Solution:\n    def isEven(self, n):\n        import math\n        return math.gcd(n, 2) == 2",
        ],
    },
]


def lcb_rows():
    """The problems as code_generation_lite rows (private tests compressed,
    as the data set ships them)."""
    import base64
    import pickle
    import zlib
    rows = []
    for p in LCB_ALL:
        tt = "functional" if p["fn"] else "stdin"
        pub = [{"input": i, "output": o, "testtype": tt} for i, o in p["public"]]
        priv = [{"input": i, "output": o, "testtype": tt} for i, o in p["private"]]
        meta = {"func_name": p["fn"]} if p["fn"] else {}
        rows.append({
            "question_title": p["question_id"].replace("-", " ").title(),
            "question_content": "Synthetic problem %s." % p["question_id"],
            "platform": p["platform"],
            "question_id": p["question_id"],
            "contest_id": p["question_id"].split("_")[0],
            "contest_date": "2024-08-03T00:00:00",
            "starter_code": p.get("starter", ""),
            "difficulty": "easy",
            "public_test_cases": json.dumps(pub),
            "private_test_cases": base64.b64encode(zlib.compress(pickle.dumps(json.dumps(priv)))).decode(),
            "metadata": json.dumps(meta),
        })
    return rows


# ---------------------------------------------------------------- MATH-500 recorded answers

# Answers a reasoning model writes for real MATH-500 ground truths
# (math500_answers.json): the exact form, the forms a grader must accept
# (\dfrac, a/b, mixed numbers, decimals, degrees or units dropped, commas,
# reordered terms, equivalent radicals), and near misses and wrong ones.
MATH500_ANSWERS = [
    ("\\left( 3, \\frac{\\pi}{2} \\right)", ["\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\frac{\\pi}{2})", "(3,\\pi/2)",
                                              "\\left(3, \\dfrac{\\pi}{2}\\right)", "(3, 90^\\circ)", "(-3, \\frac{3\\pi}{2})"]),
    ("p - q", ["p - q", "p-q", "-q + p", "q - p"]),
    ("\\frac{14}{3}", ["\\frac{14}{3}", "\\dfrac{14}{3}", "14/3", "4\\frac{2}{3}", "4.67", "\\frac{28}{6}"]),
    ("\\text{Evelyn}", ["\\text{Evelyn}", "Evelyn", "\\textbf{Evelyn}", "\\text{Angela}", "\\text{(Evelyn)}"]),
    ("90^\\circ", ["90^\\circ", "90", "90^{\\circ}", "90\u00b0", "\\frac{\\pi}{2}", "90 \\text{ degrees}"]),
    ("3\\sqrt{13}", ["3\\sqrt{13}", "\\sqrt{117}", "3 \\sqrt{13}", "3\\sqrt13", "10.82"]),
    ("6 - 5i", ["6-5i", "6 - 5 i", "6+5i", "-5i+6", "6 - 5\\mathrm{i}"]),
    ("\\pi", ["\\pi", "3.14159", "\\pi \\text{ radians}", "180^\\circ"]),
    ("x=5", ["x=5", "5", "x = 5", "x=-5"]),
    ("1,-2", ["1,-2", "-2, 1", "1 \\text{ and } -2", "x=1, x=-2", "\\{1,-2\\}", "1"]),
    ("52_8", ["52_8", "52_{8}", "42", "52"]),
    ("11\\sqrt2", ["11\\sqrt{2}", "11\\sqrt2", "\\sqrt{242}", "15.556"]),
    ("3, 5, 7", ["3, 5, 7", "3,5,7", "7, 5, 3", "3, 5"]),
    ("1.25", ["1.25", "\\frac{5}{4}", "\\frac54", "1\\frac{1}{4}", "125\\%"]),
    ("x^5 - x^4 + x^3 - x^2 + x - 1", ["x^5 - x^4 + x^3 - x^2 + x - 1", "x^5-x^4+x^3-x^2+x-1", "(x-1)(x^4+x^2+1)",
                                        "x^5 + x^4 + x^3 - x^2 + x - 1"]),
    ("-\\frac{\\pi}{6}", ["-\\frac{\\pi}{6}", "-\\dfrac{\\pi}{6}", "-\\pi/6", "\\frac{-\\pi}{6}", "-30^\\circ", "\\frac{\\pi}{6}"]),
    ("0.15", ["0.15", ".15", "\\frac{3}{20}", "15\\%", "0.150"]),
    ("(6,31,-1)", ["(6,31,-1)", "(6, 31, -1)", "6,31,-1", "(6,-31,-1)"]),
    ("\\frac{3\\sqrt{3}}{4}", ["\\frac{3\\sqrt{3}}{4}", "\\dfrac{3\\sqrt3}{4}", "\\frac{3}{4}\\sqrt{3}", "\\frac{\\sqrt{27}}{4}", "1.299"]),
    ("\\cot x", ["\\cot x", "\\cot(x)", "\\frac{\\cos x}{\\sin x}", "\\tan x"]),
    ("(-2,1)", ["(-2,1)", "(-2, 1)", "\\left(-2, 1\\right)", "(1,-2)"]),
    ("1 \\pm \\sqrt{19}", ["1 \\pm \\sqrt{19}", "1\\pm\\sqrt{19}", "1+\\sqrt{19}, 1-\\sqrt{19}", "1 + \\sqrt{19}"]),
    ("\\text{east}", ["\\text{east}", "east", "\\text{East}", "\\text{E}", "\\text{west}"]),
    ("\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}", [
        "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}",
        "\\begin{pmatrix} -\\frac{1}{3} \\\\ \\frac{2}{3} \\\\ \\frac{5}{3} \\end{pmatrix}",
        "\\begin{pmatrix}-1/3\\\\2/3\\\\5/3\\end{pmatrix}", "\\left(-\\frac13, \\frac23, \\frac53\\right)",
        "\\begin{bmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{bmatrix}"]),
    ("(3,4]", ["(3,4]", "(3, 4]", "3 < x \\le 4", "[3,4]", "x \\in (3,4]"]),
    ("\\frac43", ["\\frac{4}{3}", "\\frac43", "4/3", "1.333", "1\\frac{1}{3}"]),
    ("\\text{even}", ["\\text{even}", "even", "\\text{Even}", "\\text{odd}", "\\text{even function}"]),
    ("4210_{5}", ["4210_5", "4210_{5}", "4210", "555_{10}"]),
    ("(15,-29)", ["(15,-29)", "(15, -29)", "\\left(15,-29\\right)", "(-29,15)", "(15,29)"]),
    ("\\frac{\\sqrt{3}}{3}", ["\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}", "\\frac{\\sqrt3}{3}", "\\dfrac{\\sqrt{3}}{3}", "0.577",
                              "\\sqrt{3}/3"]),
    ("30^\\circ", ["30^\\circ", "30", "30^{\\circ}", "\\frac{\\pi}{6}", "30\u00b0", "150^\\circ"]),
    ("\\dfrac{17}{50}", ["\\frac{17}{50}", "0.34", "34\\%", "\\dfrac{17}{50}", "17/50"]),
    ("\\frac{270}7\\text{ degrees}", ["\\frac{270}{7}", "\\frac{270}{7}^\\circ", "\\frac{270}{7} \\text{ degrees}", "38\\frac{4}{7}", "38.57"]),
    (".0000672", [".0000672", "0.0000672", "6.72 \\times 10^{-5}", "6.72\\times10^{-5}", "0.000672"]),
    ("5x - 7y + 11z + 4 = 0", ["5x - 7y + 11z + 4 = 0", "5x-7y+11z+4=0", "-5x + 7y - 11z - 4 = 0", "5x - 7y + 11z = -4"]),
    ("(2,\\infty)", ["(2,\\infty)", "(2, \\infty)", "x > 2", "[2,\\infty)", "(2, +\\infty)"]),
    ("10,\\!080", ["10,\\!080", "10080", "10,080", "10{,}080", "10 080"]),
    ("\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}", [
        "\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}", "\\begin{pmatrix}-2\\\\-14\\\\-7\\end{pmatrix}",
        "(-2,-14,-7)", "\\begin{pmatrix} 2 \\\\ 14 \\\\ 7 \\end{pmatrix}"]),
    ("11,\\! 111,\\! 111,\\! 100", ["11,111,111,100", "11111111100", "11,\\!111,\\!111,\\!100", "1.11111111 \\times 10^{10}"]),
    ("\\text{(C)}", ["\\text{(C)}", "(C)", "C", "\\textbf{(C)}", "\\text{C}", "\\text{(D)}"]),
    ("288 \\pi", ["288\\pi", "288 \\pi", "288\\pi \\text{ cubic units}", "904.78", "\\pi \\cdot 288"]),
    ("\\frac 59", ["\\frac{5}{9}", "\\frac 59", "5/9", "0.\\overline{5}", "0.556"]),
    ("\\$32,\\!348", ["\\$32,348", "32348", "\\$32,\\!348", "32,348", "\\$32348.00"]),
    ("-13x+3", ["-13x+3", "3-13x", "-13x + 3", "13x-3"]),
    ("\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", [
        "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "\\begin{pmatrix}-1&0\\\\0&-1\\end{pmatrix}",
        "\\begin{bmatrix} -1 & 0 \\\\ 0 & -1 \\end{bmatrix}", "-I"]),
    ("864 \\mbox{ inches}^2", ["864", "864 \\text{ square inches}", "864 \\mbox{ inches}^2", "864 \\text{ in}^2", "846"]),
    ("1\\frac{4}{5}", ["1\\frac{4}{5}", "\\frac{9}{5}", "1.8", "1 \\frac45", "9/5"]),
    ("18+2\\pi", ["18+2\\pi", "2\\pi + 18", "18 + 2 \\pi", "24.28"]),
    ("3 \\pm 2 \\sqrt{2}", ["3 \\pm 2\\sqrt{2}", "3\\pm2\\sqrt2", "3+2\\sqrt{2}, 3-2\\sqrt{2}", "3 \\pm \\sqrt{8}"]),
    ("\\left(\\frac{3}{5},\\frac{8}{3}\\right]", ["\\left(\\frac{3}{5},\\frac{8}{3}\\right]", "(\\frac35, \\frac83]", "(0.6, 8/3]",
                                                 "\\left[\\frac{3}{5},\\frac{8}{3}\\right]"]),
    ("5.4 \\text{ cents}", ["5.4", "5.4 \\text{ cents}", "5.4\\text{ cents}", "\\$0.054", "5.40"]),
    ("\\frac9{19}", ["\\frac{9}{19}", "\\frac9{19}", "9/19", "0.4737"]),
    ("(-\\infty, 0]", ["(-\\infty, 0]", "(-\\infty,0]", "x \\le 0", "(-\\infty, 0)"]),
    ("58,500", ["58,500", "58500", "\\$58,500", "58,\\!500", "58.5"]),
    ("6r^2-4r-24", ["6r^2-4r-24", "6r^2 - 4r - 24", "2(3r^2-2r-12)", "6r^2-4r+24"]),
    ("\\text{ellipse}", ["\\text{ellipse}", "ellipse", "\\text{(D)}", "\\text{Ellipse}", "\\text{circle}"]),
    ("(1,-16,-4,43)", ["(1,-16,-4,43)", "(1, -16, -4, 43)", "1,-16,-4,43", "(1,-16,4,43)"]),
    ("(0,9) \\cup (9,36)", ["(0,9) \\cup (9,36)", "(0, 9) \\cup (9, 36)", "(0,36)", "(0,9)\\cup(9,36)"]),
    ("\\frac{20000}{\\pi}", ["\\frac{20000}{\\pi}", "20000/\\pi", "6366.2", "\\dfrac{20000}{\\pi}"]),
    ("x \\in [-2,7]", ["[-2,7]", "x \\in [-2,7]", "-2 \\le x \\le 7", "[-2, 7]"]),
    ("\\{1\\pm\\sqrt{5},-2\\}", ["1+\\sqrt{5}, 1-\\sqrt{5}, -2", "-2, 1 \\pm \\sqrt{5}", "\\{1\\pm\\sqrt{5},-2\\}", "1\\pm\\sqrt{5},-2"]),
    ("3R^2", ["3R^2", "3r^2", "3 R^2", "3R^{2}"]),
    ("\\left[ \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right]", ["\\left[ \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right]",
                                                                "[\\frac{\\pi^2}{8}, \\frac{5\\pi^2}{4}]", "[\\pi^2/8, 5\\pi^2/4]",
                                                                "\\left( \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right)"]),
    ("y = 2x + 3", ["y = 2x + 3", "y=2x+3", "2x+3", "y = 3 + 2x"]),
    ("\\$18.90", ["\\$18.90", "18.90", "18.9", "\\$18.9", "\\$19"]),
    ("137 \\frac{1}{2}", ["137\\frac{1}{2}", "137.5", "\\frac{275}{2}", "137 \\frac12"]),
    ("15\\mbox{ cm}^2", ["15", "15 \\text{ cm}^2", "15\\mbox{ cm}^2", "15\\text{ square centimeters}"]),
    ("y = -2x", ["y = -2x", "y=-2x", "-2x", "y = 2x"]),
    ("(2,12) \\cup (12,102)", ["(2,12) \\cup (12,102)", "(2,12)\\cup(12,102)", "(2,102)", "(2, 12) \\cup (12, 102)"]),
    ("106^\\circ", ["106^\\circ", "106", "106^{\\circ}", "74^\\circ"]),
    ("\\frac{1}{2}", ["\\frac{1}{2}", "\\frac12", "0.5", "1/2", "50\\%", "\\dfrac{1}{2}", "\\tfrac12"]),
    ("2\\sqrt{5}", ["2\\sqrt{5}", "\\sqrt{20}", "2\\sqrt5", "4.47"]),
    ("1+2i", ["1+2i", "1 + 2i", "2i+1", "1-2i"]),
    ("\\sqrt{51}", ["\\sqrt{51}", "\\sqrt51", "51^{1/2}", "7.14"]),
    ("\\frac{243}{625}", ["\\frac{243}{625}", "0.3888", "\\left(\\frac{3}{5}\\right)^5", "243/625"]),
    ("70 \\sqrt{2}", ["70\\sqrt{2}", "70 \\sqrt 2", "\\sqrt{9800}", "99"]),
    ("\\frac{448}{15625}", ["\\frac{448}{15625}", "0.028672", "448/15625", "\\frac{448}{15624}"]),
    ("2k+2", ["2k+2", "2(k+1)", "2k + 2", "2k"]),
    ("(a+5)(b+2)", ["(a+5)(b+2)", "(b+2)(a+5)", "ab+2a+5b+10", "(a+2)(b+5)"]),
    ("\\frac{3840}{289}", ["\\frac{3840}{289}", "13\\frac{83}{289}", "13.287", "3840/289"]),
    ("-\\sqrt{3}", ["-\\sqrt{3}", "-\\sqrt3", "\\sqrt{3}", "-1.732"]),
    ("\\frac{16}{5}", ["\\frac{16}{5}", "3.2", "3\\frac{1}{5}", "16/5"]),
]

# Integer ground truths of MATH-500 with what a model writes for them.
MATH500_INT_FORMS = [
    lambda v: "%d" % v, lambda v: "%d.0" % v, lambda v: "\\$%d" % v, lambda v: "%d\\%%" % v,
    lambda v: "%d \\text{ ways}" % v, lambda v: "%d^\\circ" % v, lambda v: "x = %d" % v, lambda v: "\\text{%d}" % v,
    lambda v: "{:,}".format(v), lambda v: "{:,}".format(v).replace(",", ",\\!"), lambda v: "%d" % (v + 1),
    lambda v: "%d" % (v - 2), lambda v: "\\frac{%d}{2}" % (2 * v), lambda v: "%d \\cdot 1" % v, lambda v: "%d\\text{ cm}^2" % v,
    lambda v: "n = %d" % v, lambda v: "%d, %d" % (v, v + 1), lambda v: "-%d" % v if v > 0 else "%d" % (v - 1),
    lambda v: "%d.5" % v, lambda v: "\\mathbf{%d}" % v,
]


def math500_recorded(rng):
    """Full model outputs for MATH-500 (text, ground truth): every answer of
    MATH500_ANSWERS, and integer truths in the forms of MATH500_INT_FORMS,
    each written as DeepSeek-R1 or gpt-oss-120b writes it: the final box
    after the reasoning, an earlier box replaced by a later one, the box in
    Harmony's analysis channel only, a truncated output without a box, an
    unclosed box, an empty one."""
    items = [(a, gt) for gt, ans in MATH500_ANSWERS for a in ans]
    ints = [x for x in math_answers() if x.lstrip("-").isdigit()]
    for i, gt in enumerate(ints[:80]):
        items.append((MATH500_INT_FORMS[i % len(MATH500_INT_FORMS)](int(gt)), gt))
    out = []
    for i, (ans, gt) in enumerate(items):
        k = i % 13
        if k in (0, 7):
            text = r1(rng, "Putting it together, the final answer is $\\boxed{%s}$." % ans)
        elif k in (1, 8):
            text = r1(rng, "**Final Answer**\n\\[\n\\boxed{%s}\n\\]" % ans)
        elif k in (2, 9):
            text = harmony(rng, "**Answer:** $\\boxed{%s}$" % ans)
        elif k == 3:
            text = r1(rng, "At first I got $\\boxed{%s}$, but I dropped a sign. Redoing it gives $\\boxed{%s}$." % ("17", ans))
        elif k == 4:
            text = harmony(rng, "The answer is $%s$." % ans, analysis=reasoning(rng) + " So \\boxed{%s}." % ans)
        elif k == 10:
            text = r1(rng, "Thus the answer is:\n\n$$\\boxed{ %s }$$\n\nI hope this helps." % ans)
        elif k == 5:
            text = r1(rng, "", truncated=True) + " So far the value is " + ans
        elif k == 6:
            text = r1(rng, "The answer is %s." % ans) if i % 2 else r1(rng, "\\boxed{%s" % ans)
        elif k == 11:
            text = harmony(rng, "\\boxed{%s}" % ans, end="") if i % 2 else r1(rng, "\\boxed{}\n\nanswer: " + ans)
        else:
            text = r1(rng, "Hence \\(\\boxed{%s}\\)" % ans)
        out.append((text, gt))
    return out


# ---------------------------------------------------------------- LiveCodeBench, more problems


def _fib_mod(n, m=10**9 + 7):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % m
    return a


def _digits(n):
    """str(n) past CPython's default 4300-digit limit."""
    import sys
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(n)
    finally:
        sys.set_int_max_str_digits(old)


def _p(code):
    """A program as written in the solution lists below (dedented, no
    leading or trailing blank lines)."""
    import textwrap
    return textwrap.dedent(code).strip("\n")


# More synthetic problems (our own statements and tests), each with the
# programs a reasoning model writes for it: right ones in several styles,
# and ones that trip over what LiveCodeBench's testing_util does — stdin
# patched only for sys.stdin/input/open (so `for line in sys.stdin`,
# `from sys import stdin` and sys.stdin.buffer.readline behave oddly), the
# program wrapped in a function (so `global` and `from __future__` fail),
# the __main__ guard stripped only in one spelling, "class Solution"
# looked for as text, output compared line by line then as Decimals (so
# trailing spaces, 2.50 and doubled spaces between numbers pass, a blank
# line between answers does not), call results compared with == after a
# top-level tuple becomes a list (inner tuples do not), the prelude's
# star imports (operator's sub shadowing re's), quit() disabled, exit()
# absorbed, the int-to-str digit limit raised to 50000.
LCB_MORE = [
    {
        "question_id": "abc320_a", "platform": "atcoder", "fn": None,
        "public": [("3\nabc\naba\nx\n", "2\n")],
        "private": [("1\nab\n", "0\n"), ("4\naa\nbb\ncd\nracecar\n", "3\n")],
        "solutions": [_p(s) for s in [
            """
            n = int(input())
            count = 0
            for _ in range(n):
                s = input().strip()
                if s == s[::-1]:
                    count += 1
            print(count)
            """,
            """
            import sys
            data = sys.stdin.read().split()
            n = int(data[0])
            print(sum(1 for w in data[1:n + 1] if w == w[::-1]))
            """,
            """
            import sys
            lines = [line.strip() for line in sys.stdin]
            n = int(lines[0])
            print(sum(1 for s in lines[1:n + 1] if s == s[::-1]))
            """,
            """
            import sys
            lines = sys.stdin.readlines()
            print(sum(1 for s in lines[1:] if s.strip() == s.strip()[::-1]))
            """,
            """
            import sys
            lines = sys.stdin.readlines()
            n = int(lines[0])
            print(sum(1 for s in lines[1:n + 1] if s.strip() == s.strip()[::-1]))
            """,
            """
            import sys
            input = sys.stdin.buffer.readline
            n = int(input())
            cnt = 0
            for _ in range(n):
                s = input().strip()
                cnt += s == s[::-1]
            print(cnt)
            """,
            """
            from sys import stdin
            n = int(stdin.readline())
            words = [stdin.readline().strip() for _ in range(n)]
            print(sum(w == w[::-1] for w in words))
            """,
            """
            import sys
            input = sys.stdin.readline
            n = int(input())
            ans = 0
            for _ in range(n):
                s = input().rstrip('\\n')
                ans += s == s[::-1]
            print(ans)
            """,
            """
            count = 0

            def check(s):
                global count
                if s == s[::-1]:
                    count += 1

            n = int(input())
            for _ in range(n):
                check(input().strip())
            print(count)
            """,
            """
            res = [0]

            def check(s):
                if s == s[::-1]:
                    res[0] += 1

            n = int(input())
            for _ in range(n):
                check(input().strip())
            print(res[0])
            """,
            """
            from __future__ import annotations


            def is_pal(s: str) -> bool:
                return s == s[::-1]


            n = int(input())
            print(sum(is_pal(input().strip()) for _ in range(n)))
            """,
            """
            import sys
            import threading


            def main():
                n = int(input())
                print(sum(1 for _ in range(n) if (s := input().strip()) == s[::-1]))


            threading.stack_size(1 << 26)
            t = threading.Thread(target=main)
            t.start()
            t.join()
            """,
            """
            n = int(input())
            print(sum(1 for _ in range(n) if len(s := input().strip()) > 1 and s == s[::-1]))
            """,
            """
            def main():
                n = int(input())
                print(sum(1 for _ in range(n) if (s := input().strip()) == s[::-1]))


            if "__main__" == __name__:
                main()
            """,
            """
            def main():
                n = int(input())
                print(sum(1 for _ in range(n) if (s := input().strip()) == s[::-1]))


            if __name__ == "__main__":
                main()
            """,
            """
            import sys
            n = int(input())
            c = sum(1 for _ in range(n) if (s := input().strip()) == s[::-1])
            sys.stdout.buffer.write(str(c).encode() + b"\\n")
            """,
            """
            import resource
            import sys
            resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            n = int(input())
            print(sum(1 for _ in range(n) if (s := input().strip()) == s[::-1]))
            """,
            """
            n = int(stdin.readline())
            print(sum(1 for _ in range(n) if (s := stdin.readline().strip()) == s[::-1]))
            """,
            """
            n = int(input())
            c = sum(1 for _ in range(n) if (s := input().strip()) == s[::-1])
            print(c)
            exit(0)
            """,
            """
            n = int(input())
            c = sum(1 for _ in range(n) if (s := input().strip()) == s[::-1])
            print(c)
            quit()
            """,
            """
            n = int(input())
            c = sum(1 for _ in range(n) if (s := input().strip()) == s[::-1])
            print(c)
            assert c < 2, "too many"
            """,
            """
            n = int(input())
              words = [input() for _ in range(n)]
            print(sum(w == w[::-1] for w in words))
            """,
            """
            n = int(input())
            words = [input().strip() for _ in range(n + 1)]
            print(sum(w == w[::-1] for w in words))
            """,
        ]],
    },
    {
        "question_id": "abc321_b", "platform": "atcoder", "fn": None,
        "public": [("4\n1 2 3 4\n", "2.5\n")],
        "private": [("2\n3 3\n", "3\n"), ("3\n1 1 2\n", "1.3333333333\n")],
        "solutions": [_p(s) for s in [
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(f"{sum(a) / n:.10f}")
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(sum(a) / n)
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(sum(a) // n)
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(round(sum(a) / n, 10))
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print('%.6f' % (sum(a) / n))
            """,
            """
            from fractions import Fraction
            n = int(input())
            a = list(map(int, input().split()))
            print(Fraction(sum(a), n))
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(f"{mean(a):.10f}")
            """,
            """
            from decimal import Decimal, getcontext
            getcontext().prec = 11
            n = int(input())
            a = list(map(int, input().split()))
            print(Decimal(sum(a)) / Decimal(n))
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(f"{sum(a) / n:.10g}")
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print "%.10f" % (sum(a) / n)
            """,
            """
            import sys
            n, *a = map(int, sys.stdin.read().split())
            print("{:.12f}".format(sum(a) / n))
            """,
        ]],
    },
    {
        "question_id": "abc322_c", "platform": "atcoder", "fn": None,
        "public": [("3\n4\n7\n10\n", "Yes\nNo\nYes\n")],
        "private": [("1\n0\n", "Yes\n"), ("2\n1 \n-2\n", "No\nYes\n")],
        "solutions": [_p(s) for s in [
            """
            q = int(input())
            for _ in range(q):
                x = int(input())
                print("Yes" if x % 2 == 0 else "No")
            """,
            """
            q = int(input())
            for _ in range(q):
                x = int(input())
                print("YES" if x % 2 == 0 else "NO")
            """,
            """
            q = int(input())
            out = []
            for _ in range(q):
                out.append("Yes" if int(input()) % 2 == 0 else "No")
            print("\\n".join(out))
            """,
            """
            q = int(input())
            out = ["Yes" if int(input()) % 2 == 0 else "No" for _ in range(q)]
            print(" ".join(out))
            """,
            """
            q = int(input())
            for _ in range(q):
                print(("Yes" if int(input()) % 2 == 0 else "No") + "  ")
            """,
            """
            q = int(input())
            for _ in range(q):
                print("Yes" if int(input()) % 2 == 0 else "No")
                print()
            """,
            """
            print()
            q = int(input())
            for _ in range(q):
                print("Yes" if int(input()) % 2 == 0 else "No")
            """,
            """
            import sys
            q = int(input())
            for i in range(q):
                x = int(input())
                print(f"query {i}: {x}", file=sys.stderr)
                print("Yes" if x % 2 == 0 else "No")
            """,
            """
            q = int(input())
            for i in range(q):
                x = int(input())
                print(f"query {i}: {x}")
                print("Yes" if x % 2 == 0 else "No")
            """,
            """
            q = int(input())
            xs = [int(input()) for _ in range(q)]
            print(*("Yes" if x % 2 == 0 else "No" for x in xs), sep="\\n")
            """,
            """
            q = int(input())
            for _ in range(q):
                print("Yes" if int(input()) % 2 == 1 else "No")
            """,
            """
            import sys
            data = sys.stdin.read().split()
            for tok in data[1:]:
                print("Yes" if int(tok) % 2 == 0 else "No")
            """,
            """
            import sys
            q = int(input())
            sys.stdout.write("\\n".join("Yes" if int(input()) % 2 == 0 else "No" for _ in range(q)))
            """,
            """
            q = int(input())
            for _ in range(q):
                x = int(input()
                print("Yes" if x % 2 == 0 else "No")
            """,
            """
            q = int(input())
            for _ in range(q):
                x = input()
                print("Yes" if x.isdigit() and int(x) % 2 == 0 else "No")
            """,
        ]],
    },
    {
        "question_id": "abc323_a", "platform": "atcoder", "fn": None,
        "public": [("10\n", "1024\n")],
        "private": [("0\n", "1\n"), ("20000\n", _digits(2 ** 20000) + "\n")],
        "solutions": [_p(s) for s in [
            """
            n = int(input())
            print(2 ** n)
            """,
            """
            print(1 << int(input()))
            """,
            """
            n = int(input())
            print(int(2.0 ** n))
            """,
            """
            n = int(input())
            print(pow(2, n, 10 ** 9 + 7))
            """,
            """
            import math
            n = int(input())
            print(int(math.pow(2, n)))
            """,
            """
            import sys
            sys.set_int_max_str_digits(0)
            print(2 ** int(input()))
            """,
            """
            n = int(input())
            print(f"{2 ** n:,}")
            """,
            """
            n = int(input())
            r = 1
            for _ in range(n):
                r *= 2
            print(r)
            """,
        ]],
    },
    {
        "question_id": "abc324_b", "platform": "atcoder", "fn": None,
        "public": [("5\n", "5\n"), ("1\n", "1\n")],
        "private": [("3000\n", "%d\n" % _fib_mod(3000))],
        "solutions": [_p(s) for s in [
            """
            n = int(input())
            a, b = 0, 1
            for _ in range(n):
                a, b = b, (a + b) % (10 ** 9 + 7)
            print(a)
            """,
            """
            from functools import lru_cache

            MOD = 10 ** 9 + 7


            @lru_cache(maxsize=None)
            def f(n):
                if n <= 2:
                    return 1
                return (f(n - 1) + f(n - 2)) % MOD


            print(f(int(input())))
            """,
            """
            def f(n):
                if n <= 2:
                    return 1
                return (f(n - 1) + f(n - 2)) % (10 ** 9 + 7)


            print(f(int(input())))
            """,
            """
            import sys
            sys.setrecursionlimit(10000)
            memo = {}


            def f(n):
                if n <= 2:
                    return 1
                if n not in memo:
                    memo[n] = (f(n - 1) + f(n - 2)) % (10 ** 9 + 7)
                return memo[n]


            print(f(int(input())))
            """,
            """
            n = int(input())
            a, b = 0, 1
            for _ in range(n):
                a, b = b, (a + b) % (10 ** 9 + 9)
            print(a)
            """,
            """
            n = int(input())
            a, b = 0, 1
            for _ in range(n):
                a, b = b, a + b
            print(a)
            """,
            """
            n = int(input())
            a, b = 0, 1
            for _ in range(n - 1):
                a, b = b, (a + b) % (10 ** 9 + 7)
            print(a)
            """,
            """
            @cache
            def f(n):
                return 1 if n <= 2 else (f(n - 1) + f(n - 2)) % 1000000007


            print(f(int(input())))
            """,
        ]],
    },
    {
        "question_id": "abc325_b", "platform": "atcoder", "fn": None,
        "public": [("2 3\nabc\ndef\n", "ad\nbe\ncf\n")],
        "private": [("1 1\nz\n", "z\n")],
        "solutions": [_p(s) for s in [
            """
            h, w = map(int, input().split())
            g = [input() for _ in range(h)]
            for j in range(w):
                print(''.join(g[i][j] for i in range(h)))
            """,
            """
            h, w = map(int, input().split())
            g = [input().strip() for _ in range(h)]
            for col in zip(*g):
                print(''.join(col))
            """,
            """
            h, w = map(int, input().split())
            g = [input() for _ in range(h)]
            print(list(zip(*g)))
            """,
            """
            h, w = map(int, input().split())
            g = [input() for _ in range(h)]
            for col in zip(*g):
                print(' '.join(col))
            """,
            """
            h, w = map(int, input().split())
            g = [input() for _ in range(h)]
            for row in g:
                print(row)
            """,
            """
            h, w = map(int, input().split())
            g = [input() for _ in range(h)]
            for col in zip(*g):
                print(''.join(col), end=' ')
            """,
            """
            import sys
            data = sys.stdin.read().split()
            h, w = int(data[0]), int(data[1])
            g = data[2:2 + h]
            print('\\n'.join(''.join(r[j] for r in g) for j in range(w)))
            """,
        ]],
    },
    {
        "question_id": "abc326_a", "platform": "atcoder", "fn": None,
        "public": [("3\n3 1 2\n", "2 1 3\n")],
        "private": [("4\n1 5 2 2\n", "2 2 5 1\n"), ("1\n-7\n", "-7\n")],
        "solutions": [_p(s) for s in [
            """
            n = int(input())
            a = input().split()
            print(*reversed(a))
            """,
            """
            n = int(input())
            a = input().split()
            print('  '.join(a[::-1]))
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(a[::-1])
            """,
            """
            n = int(input())
            a = input().split()
            print(','.join(a[::-1]))
            """,
            """
            n = int(input())
            a = input().split()
            print(' '.join(a[::-1]) + ' ')
            """,
            """
            n = int(input())
            a = input().split()
            for x in reversed(a):
                print(x)
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(*sorted(a, reverse=True))
            """,
            """
            n = int(input())
            a = list(map(int, input().split()))
            print(*[float(x) for x in reversed(a)])
            """,
            """
            n = int(input())
            a = input().split()
            print(*reversed(a), sep=', ')
            """,
            """
            #include <bits/stdc++.h>
            int main() { int n; std::cin >> n; }
            """,
        ]],
    },
    {
        "question_id": "maximum-subarray", "platform": "leetcode", "fn": "maxSubArray",
        "starter": "class Solution:\n    def maxSubArray(self, nums: List[int]) -> int:\n        ",
        "public": [("[-2,1,-3,4,-1,2,1,-5,4]", "6"), ("[1]", "1")],
        "private": [("[-3,-1,-2]", "-1"), ("[5,4,-1,7,8]", "23")],
        "solutions": [_p(s) for s in [
            """
            class Solution:
                def maxSubArray(self, nums: List[int]) -> int:
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums: List[int]) -> int:
                    best = cur = 0
                    for x in nums:
                        cur = max(0, cur + x)
                        best = max(best, cur)
                    return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    n = len(nums)
                    best = nums[0]
                    for i in range(n):
                        s = 0
                        for j in range(i, n):
                            s += nums[j]
                            best = max(best, s)
                    return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return float(best)
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return str(best)
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return [best]
            """,
            """
            class Solution:
                def _kadane(self, nums):
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return best

                def maxSubArray(self, nums: List[int]) -> int:
                    return self._kadane(nums)
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    pre = [0] + list(accumulate(nums))
                    best, low = nums[0], 0
                    for p in pre[1:]:
                        best = max(best, p - low)
                        low = min(low, p)
                    return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    best = max(nums[0], nums[1])
                    cur = best
                    for x in nums[2:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums, k):
                    return max(nums)
            """,
            """
            class Solution:
                def __init__(self, nums):
                    self.nums = nums

                def maxSubArray(self, nums):
                    return max(nums)
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    print("best so far", best)
                    return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    best = cur = nums[0]
                    for x in nums[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
            """,
            """
            def maxSubArray(nums):
                best = cur = nums[0]
                for x in nums[1:]:
                    cur = max(x, cur + x)
                    best = max(best, cur)
                return best
            """,
            """
            # A class Solution wrapper is not needed for this.
            def maxSubArray(nums):
                best = cur = nums[0]
                for x in nums[1:]:
                    cur = max(x, cur + x)
                    best = max(best, cur)
                return best
            """,
            """
            class Solution:
                def maxSubArray(self, nums):
                    if len(nums) == 1:
                        exit()
                    return max(nums)
            """,
            """
            class Solution:
                def maxSubArray(self, nums)
                    return max(nums)
            """,
        ]],
    },
    {
        "question_id": "merge-intervals", "platform": "leetcode", "fn": "merge",
        "starter": "class Solution:\n    def merge(self, intervals: List[List[int]]) -> List[List[int]]:\n        ",
        "public": [("[[1,3],[2,6],[8,10],[15,18]]", "[[1, 6], [8, 10], [15, 18]]")],
        "private": [("[[1,4],[4,5]]", "[[1, 5]]"), ("[[1,4],[0,4]]", "[[0, 4]]")],
        "solutions": [_p(s) for s in [
            """
            class Solution:
                def merge(self, intervals: List[List[int]]) -> List[List[int]]:
                    intervals.sort()
                    out = []
                    for s, e in intervals:
                        if out and s <= out[-1][1]:
                            out[-1][1] = max(out[-1][1], e)
                        else:
                            out.append([s, e])
                    return out
            """,
            """
            class Solution:
                def merge(self, intervals):
                    intervals.sort()
                    out = []
                    for s, e in intervals:
                        if out and s <= out[-1][1]:
                            out[-1] = (out[-1][0], max(out[-1][1], e))
                        else:
                            out.append((s, e))
                    return out
            """,
            """
            class Solution:
                def merge(self, intervals):
                    intervals.sort()
                    out = []
                    for s, e in intervals:
                        if out and s <= out[-1][1]:
                            out[-1][1] = max(out[-1][1], e)
                        else:
                            out.append([s, e])
                    return tuple(out)
            """,
            """
            class Solution:
                def merge(self, intervals):
                    out = []
                    for s, e in intervals:
                        if out and s <= out[-1][1]:
                            out[-1][1] = max(out[-1][1], e)
                        else:
                            out.append([s, e])
                    return out
            """,
            """
            class Solution:
                def merge(self, intervals):
                    intervals.sort()
                    out = []
                    for s, e in intervals:
                        if out and s < out[-1][1]:
                            out[-1][1] = max(out[-1][1], e)
                        else:
                            out.append([s, e])
                    return out
            """,
            """
            class Solution:
                def merge(self, intervals):
                    intervals.sort()
                    out = []
                    for s, e in intervals:
                        if out and s <= out[-1][1]:
                            out[-1][1] = max(out[-1][1], e)
                        else:
                            out.append([s, e])
                    return (x for x in out)
            """,
            """
            class Solution:
                def merge(self, intervals):
                    res = []
                    for cur in sorted(intervals, key=lambda x: x[0]):
                        if not res or res[-1][1] < cur[0]:
                            res.append(list(cur))
                        else:
                            res[-1][1] = max(res[-1][1], cur[1])
                    return res
            """,
        ]],
    },
    {
        "question_id": "valid-palindrome", "platform": "leetcode", "fn": "isPalindrome",
        "starter": "class Solution:\n    def isPalindrome(self, s: str) -> bool:\n        ",
        "public": [("\"A man, a plan, a canal: Panama\"", "true"), ("\"race a car\"", "false")],
        "private": [("\" \"", "true")],
        "solutions": [_p(s) for s in [
            """
            class Solution:
                def isPalindrome(self, s: str) -> bool:
                    t = [c.lower() for c in s if c.isalnum()]
                    return t == t[::-1]
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    t = [c.lower() for c in s if c.isalnum()]
                    return 1 if t == t[::-1] else 0
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    t = [c.lower() for c in s if c.isalnum()]
                    return "true" if t == t[::-1] else "false"
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    t = [c for c in s if c.isalnum()]
                    return t == t[::-1]
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    i, j = 0, len(s) - 1
                    while i < j:
                        while i < j and not s[i].isalnum():
                            i += 1
                        while i < j and not s[j].isalnum():
                            j -= 1
                        if s[i].lower() != s[j].lower():
                            return False
                        i, j = i + 1, j - 1
                    return True
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    t = sub(r'[^a-z0-9]', '', s.lower())
                    return t == t[::-1]
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    t = re.sub(r'[^a-z0-9]', '', s.lower())
                    return t == t[::-1]
            """,
            """
            class Solution:
                def isPalindrome(self, s):
                    return s == s[::-1]
            """,
        ]],
    },
    {
        "question_id": "average-value", "platform": "leetcode", "fn": "average",
        "starter": "class Solution:\n    def average(self, nums: List[int]) -> float:\n        ",
        "public": [("[1,2,3,4]", "2.5"), ("[3,3]", "3.0")],
        "private": [("[1,2]", "1.5")],
        "solutions": [_p(s) for s in [
            """
            class Solution:
                def average(self, nums: List[int]) -> float:
                    return sum(nums) / len(nums)
            """,
            """
            class Solution:
                def average(self, nums):
                    return sum(nums) // len(nums)
            """,
            """
            class Solution:
                def average(self, nums):
                    return round(sum(nums) / len(nums), 1)
            """,
            """
            import statistics


            class Solution:
                def average(self, nums):
                    return statistics.mean(nums)
            """,
            """
            class Solution:
                def average(self, nums):
                    return f"{sum(nums) / len(nums):.1f}"
            """,
            """
            from decimal import Decimal


            class Solution:
                def average(self, nums):
                    return Decimal(sum(nums)) / len(nums)
            """,
            """
            class Solution:
                def average(self, nums):
                    return sum(nums) / len(nums) + 1e-12
            """,
        ]],
    },
    {
        "question_id": "add-strings", "platform": "leetcode", "fn": "addStrings",
        "starter": "class Solution:\n    def addStrings(self, num1: str, num2: str) -> str:\n        ",
        "public": [("\"11\"\n\"123\"", "\"134\"")],
        "private": [("\"0\"\n\"0\"", "\"0\""), ("\"999\"\n\"1\"", "\"1000\"")],
        "solutions": [_p(s) for s in [
            """
            class Solution:
                def addStrings(self, num1: str, num2: str) -> str:
                    return str(int(num1) + int(num2))
            """,
            """
            class Solution:
                def addStrings(self, num1, num2):
                    return int(num1) + int(num2)
            """,
            """
            class Solution:
                def addStrings(self, num1, num2):
                    i, j, carry, out = len(num1) - 1, len(num2) - 1, 0, []
                    while i >= 0 or j >= 0 or carry:
                        d = carry
                        if i >= 0:
                            d += ord(num1[i]) - 48
                        if j >= 0:
                            d += ord(num2[j]) - 48
                        out.append(str(d % 10))
                        carry = d // 10
                        i, j = i - 1, j - 1
                    return ''.join(reversed(out))
            """,
            """
            class Solution:
                def addStrings(self, num1, num2):
                    i, j, carry, out = len(num1) - 1, len(num2) - 1, 0, []
                    while i >= 0 or j >= 0:
                        d = carry
                        if i >= 0:
                            d += ord(num1[i]) - 48
                        if j >= 0:
                            d += ord(num2[j]) - 48
                        out.append(str(d % 10))
                        carry = d // 10
                        i, j = i - 1, j - 1
                    return ''.join(reversed(out))
            """,
            """
            class Solution:
                def addStrings(self, *args):
                    a, b = args
                    return str(int(a) + int(b))
            """,
            """
            class Solution:
                def addStrings(self, *, num1, num2):
                    return str(int(num1) + int(num2))
            """,
        ]],
    },
    {
        "question_id": "abc327_a", "platform": "atcoder", "fn": None,
        "public": [("hello world\n", "HELLO WORLD\n")],
        "private": [("x\n", "X\n"), ("Mixed Case 42\n", "MIXED CASE 42\n")],
        "solutions": [_p(s) for s in [
            """
            print(input().upper())
            """,
            """
            s = input()
            print(s.title())
            """,
            """
            import sys
            print(sys.stdin.readline().rstrip().upper())
            """,
            """
            import sys
            input = lambda: sys.stdin.readline()[:-1]
            print(input().upper())
            """,
            """
            print(open(0).read().upper())
            """,
            """
            print(open(0).readline().strip().upper())
            """,
            """
            s = input()
            print(s.upper().split())
            """,
            """
            s = input()
            print(''.join(chr(ord(c) - 32) if 'a' <= c <= 'z' else c for c in s))
            """,
            """
            s = input()
            print(s.upper(), end='')
            """,
            """
            s = input()
            print(s.swapcase())
            """,
            """
            import sys
            for line in sys.stdin.read().splitlines():
                print(line.upper())
            """,
        ]],
    },
]

# The problems of the Go tests: the first ones, then these.
LCB_ALL = LCB_PROBLEMS + LCB_MORE


def _fence(rng, code):
    return "```python\n%s\n```" % code


def lcb_recorded(rng):
    """Whole model outputs for every program of LCB_MORE: (text,
    question_id). Each program is written the way one of the two models
    writes its answer — after <think> reasoning or in Harmony's final
    channel, with an explanation around it, in a ```python, ```python3,
    ```py or bare fence, beside a usage example or an earlier draft (so
    the two parsers pick different blocks), or cut off before its fence
    closes — and a few outputs hold no program at all."""
    out = []
    n = 0
    for p in LCB_MORE:
        qid = p["question_id"]
        sols = p["solutions"]
        for j, code in enumerate(sols):
            other = sols[(j + 1) % len(sols)]
            k = n % 12
            n += 1
            if k in (0, 6):
                text = r1(rng, "The idea is to process the input in one pass.\n\n%s\n\nThis runs in O(n) time." % _fence(rng, code))
            elif k in (1, 7):
                text = harmony(rng, "Here is a complete solution.\n\n%s\n" % _fence(rng, code))
            elif k == 2:
                text = r1(rng, "```python3\n%s\n```" % code)
            elif k == 3:
                text = harmony(rng, "**Solution**\n\n%s" % _fence(rng, code),
                               analysis="Draft:\n```python\n%s\n```\nLet me refine it. " % other + reasoning(rng))
            elif k == 4:
                text = r1(rng, "First attempt:\n\n%s\n\nWait, that is wrong on the samples. Final version:\n\n%s" % (
                    _fence(rng, other), _fence(rng, code)))
            elif k == 5:
                text = harmony(rng, "```\n%s\n```" % code)
            elif k == 8:
                text = r1(rng, "%s\n\nExample:\n\n```python\n# sample run\nprint('see above')\n```" % _fence(rng, code))
            elif k == 9:
                text = harmony(rng, "```py\n%s\n```\n\nComplexity: linear." % code)
            elif k == 10:
                text = r1(rng, "Solution:\n```python\n%s\n```" % code, think=False)
            else:
                text = harmony(rng, "```python\n%s\n```" % code, end="")
            out.append((text, qid))
    # outputs without a program to run
    qids = [p["question_id"] for p in LCB_MORE]
    out.append((r1(rng, "", truncated=True), qids[0]))
    out.append((r1(rng, "```python\n" + LCB_MORE[0]["solutions"][0]), qids[0]))
    out.append((harmony(rng, None, analysis=reasoning(rng) + " I will write a loop over the input."), qids[1]))
    out.append((r1(rng, "Read the numbers, sort them and print the middle one."), qids[2]))
    out.append((harmony(rng, "I cannot solve this within the limits."), qids[7]))
    out.append((r1(rng, "```cpp\nint main() { return 0; }\n```"), qids[3]))
    out.append((harmony(rng, "```cpp\nint main() { return 0; }\n```"), qids[3]))
    out.append((r1(rng, "```python\n```"), qids[4]))
    out.append((harmony(rng, "```python\n\n```"), qids[8]))
    out.append(("", qids[9]))
    return out
