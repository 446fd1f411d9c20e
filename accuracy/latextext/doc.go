// Package latextext converts LaTeX to plain text as pylatexenc 2.10's
// latex2text does with its defaults (LatexNodes2Text().latex_to_text),
// which openai/prm800k's MATH grader (grading/grader.py, _parse_latex)
// applies to answers before it compares them: \frac{a}{b} → a/b,
// \sqrt{x} → √(x), Greek letters and symbols to Unicode, \text{...} to its
// contents, unknown macros dropped, matrices as [ a b; c d ].
//
// The parser is a port of pylatexenc's LatexWalker in tolerant mode (its
// recovery from unbalanced braces and unknown environments included);
// the macro, environment and specials definitions are pylatexenc's own,
// extracted into tables.json by testdata/make_tables.py. Inputs on which
// pylatexenc raises rather than recovers are errors. Functions are safe
// for concurrent use.
package latextext
