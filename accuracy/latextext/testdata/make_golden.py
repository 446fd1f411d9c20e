#!/usr/bin/env python3
"""Writes latex_golden.json: pylatexenc 2.10's
LatexNodes2Text().latex_to_text(s) (or the exception it raises) for the
MATH-500 answers, the grader pairs of accuracy/reasoneval/testdata and
crafted LaTeX. Run with Debian's python3-pylatexenc from the repository
root:

  python3 accuracy/latextext/testdata/make_golden.py
"""
import json
import os
import random
import sys

from pylatexenc import latex2text

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "reasoneval", "testdata"))
import recorded  # noqa: E402

CRAFTED = [
    r"\frac{1}", r"\frac", r"\sqrt", r"\sqrt[3]{x}", r"\sqrt[]{x}", r"\sqrt x", r"\frac12", r"\frac 1 2", r"\frac{a}{b}{c}",
    r"}{", r"{{}", r"\left(\right.", r"\\", r"a\\b", r"a \\ [2mm] b", r"a\\[2mm]b", r"\\*", r"\begin{pmatrix}\end{pmatrix}",
    r"\begin{pmatrix} 1 & 2 \\ 3 & 44 \end{pmatrix}", r"\begin{bmatrix}a\\b\end{bmatrix}", r"\begin{array}{cc} 1 & 2 \end{array}",
    r"\begin{align} x &= 1 \\ y &= 2 \end{align}", r"\begin{equation} x = \frac{1}{2} \end{equation}", r"\begin{unknown}x\end{unknown}",
    r"\begin{pmatrix}1", r"\end{pmatrix}", r"\begin", r"\begin{", r"x \end{itemize} y", r"\( x^2 \)", r"\[ x \]", r"\(x", r"x\)",
    r"$x$", r"$$x$$", r"$x$$y$", r"a ~ b", r"a--b", r"a---b", r"``a''", r"!`", r"?`", r"\%", r"\$5", r"\_", r"\&", r"\#", r"\{x\}",
    r"\textbf{x} y", r"\text{ cm}^2", r"\mbox{ cm}", r"\mathbf{v}", r"\mathbb{R}", r"\mathcal{L}", r"\mathfrak{g}", r"\mathit{h}",
    r"\mathrm{d}x", r"\hat{x}", r"\vec{v}", r"\bar{z}", r"\'e", r"\"o", r"\^o", r"\~n", r"\c{c}", r"\v{s}", r"\i", r"\'\i", r"\dot{}",
    r"\alpha\beta", r"\alpha \beta", r"\Gamma", r"\varepsilon", r"\le", r"a\le b", r"a \le b", r"\cdot", r"2 \cdot 3", r"2\times3",
    r"\pm", r"\mp", r"\infty", r"-\infty", r"\emptyset", r"\varnothing", r"\in", r"\cup", r"\cap", r"\setminus", r"\ldots", r"\dots",
    r"\cdots", r"\sin x", r"\cos^2 x", r"\log_2 8", r"\ln 2", r"\lim_{x\to 0}", r"\cot x", r"\sec x", r"\binom{5}{2}", r"\dbinom52",
    r"\tfrac12", r"\dfrac{3}{4}", r"\nicefrac{1}{2}", r"\overline{AB}", r"\underline{x}", r"\widehat{ABC}", r"\angle ABC", r"\triangle",
    r"\degree", r"^\circ", r"90^{\circ}", r"\circ", r"\,", r"\;", r"\:", r"\!", r"\ ", r"\quad", r"\qquad", r"3\,000", r"10,\!080",
    r"\hspace{1cm}x", r"\vspace{2mm}", r"\textcolor{red}{x}", r"\colorbox{red}{x}", r"\footnote{n}", r"\url{a}", r"\ref{eq}",
    r"\cite{x}", r"\label{x}y", r"\emph{x}", r"\textit{x}", r"\texttt{x}", r"\operatorname{lcm}(a,b)", r"\gcd(a,b)", r"\bmod",
    r"\pmod{5}", r"\equiv", r"\approx", r"\neq", r"\ne", r"\geq", r"\lt", r"\gt", r"\to", r"\rightarrow", r"\implies", r"\iff",
    r"\langle x \rangle", r"\lvert x \rvert", r"\|x\|", r"|x|", r"\left| x \right|", r"\left\{ x \right\}", r"\left[ x \right)",
    r"% comment", "a % c\nb", "a % c\n\nb", "a\n\nb", "a\nb", "  lead", "trail  ", "\\frac{1}{2}\n", "\\alpha\n\n\\beta",
    r"\verb|x|", r"\verb", r"\verb x", r"\href{u}{t}", r"\item x", r"\item[a] x", r"\section{s}", r"\section*{s}", r"\part{p}",
    r"\texorpdfstring{a}{b}", r"\title{T}\author{A}\date{D}\maketitle", r"\input{f}", r"\includegraphics{f}", r"\uebung{x}[y]",
    r"\ensuremath{x}", r"\not=", r"\not\in", r"\prime", r"f'(x)", r"x^{\prime}", r"\partial", r"\nabla", r"\sum_{i=1}^n i",
    r"\prod", r"\int_0^1", r"\oint", r"\aleph", r"\hbar", r"\ell", r"\forall", r"\exists", r"\neg", r"\wedge", r"\vee", r"\oplus",
    r"\text{\textbf{x}}", r"\text{a $b$ c}", r"\text{}", r"\text", r"\text{", r"\frac{\sqrt{3}}{2}", r"\sqrt{\frac{1}{2}}",
    r"\sqrt[n]{x^{2}}", r"e^{i\pi}", r"x_{1}", r"x_1^2", r"10^{-3}", r"1.5\times10^{3}", r"\$1.50", r"50\%", r"5\ \text{cm}",
    r"\Box", r"\square", r"\checkmark", r"\star", r"\ast", r"\dagger", r"\S", r"\P", r"\copyright", r"\pounds", r"\euro",
    r"\ss", r"\ae", r"\o", r"\l", r"\AA", r"\th", r"\textasciitilde", r"\textbackslash", r"\backslash", r"\textdegree",
    "\\alpha \n \\beta", "\\alpha\t x", "\\alpha{}x", "\\alpha{} x", "{\\alpha}x", "x\\\\ \ny", "\\\\[1em]", "\\begin{center}x\\end{center}",
    "\\begin{itemize}\\item a\\item b\\end{itemize}", "\\begin{verbatim}x\\end{verbatim}", "\\begin{verbatim}x", "\\newcommand{\\x}{y}\\x",
    "\\frac{\\frac{1}{2}}{3}", "\\frac{1}{\\frac{2}{3}}", "\\sqrt{\\sqrt{2}}", "\\sqrt\\frac12", "\\frac\\sqrt23", "\\sqrt{x}}", "{x",
]


def run(s):
    try:
        return {"in": s, "out": latex2text.LatexNodes2Text().latex_to_text(s)}
    except Exception as e:
        return {"in": s, "error": type(e).__name__}


def main():
    inputs = list(CRAFTED)
    for a in recorded.math_answers():
        inputs.append(a)
    for g, t in recorded.math_pairs(random.Random(3434)):
        inputs += [g, t]
    seen, cases = set(), []
    for s in inputs:
        if s in seen:
            continue
        seen.add(s)
        cases.append(run(s))
    with open(os.path.join(HERE, "latex_golden.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
