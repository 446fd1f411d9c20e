// Package lcb scores LiveCodeBench code generation as the MLPerf
// reasoning scorers do (mlcommons/inference
// language/deepseek-r1/eval_accuracy.py and gpt-oss-120b/eval_accuracy.py,
// evaluate_livecodebench): the program is parsed from the output
// (ParseR1: the first ```python block; ParseHarmony: the last block of
// the Harmony final channel, else of the whole text), the problem's
// public and private tests are read from the code_generation_lite data set
// (LoadRelease: release_v1 for DeepSeek-R1, release_v6 for gpt-oss-120b),
// and Grader runs the program against them in the sandbox package — as
// LiveCodeBench's testing_util.run_test runs it (commit b1e7cab, the
// submodule mlcommons/inference pins): in one Python process per program,
// with the reference's import prelude, its reliability guard, a
// per-test alarm of 60 seconds, LeetCode methods called on JSON
// arguments, standard-input programs wrapped in a function and fed
// through patched stdin, outputs compared line by line and as Decimals.
// The reference runs it in a forked process of the scorer, guarded only
// by that reliability guard; here it runs under the sandbox's isolation
// (no network, its own user and folder, process and memory limits).
package lcb
