// Package mathgrade is the MATH-500 answer check of the MLPerf reasoning
// benchmarks: openai/prm800k's grading.grader.grade_answer (commit
// 7ecc794, the submodule mlcommons/inference language/deepseek-r1 pins
// and gpt-oss-120b links), which evaluate_math500 calls on the boxed
// answer and the ground truth. It ports the two normalisers
// (math_normalize.normalize_answer after Hendrycks' MATH, and the
// grader's _normalize, whose LaTeX step is accuracy/latextext) and the
// tuple and fraction rules exactly; the sympy step is accuracy/sympyeq.
// testdata/grade_golden.json holds the reference grader's verdicts,
// normalised strings and sympy comparisons on 2,000-odd pairs: every
// MATH-500 answer against rewrites of itself and hand-written corner
// cases. Functions are pure and safe for concurrent use.
package mathgrade
