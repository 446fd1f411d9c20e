// Package mbxp scores MBXP code completions as
// mlcommons/inference language/mixtral-8x7b/evaluate_mbxp.py does for
// Mixtral-8x7B: each response is cut at its first ``` fence,
// postprocessed for its language (postprocess_golang, _python, _scala),
// its escaped underscores unescaped, then checked as amazon-science/mxeval's
// check_correctness_<language> checks a completion — the program is
// prompt + completion + test (the prompt empty, since Mixtral writes the
// prompt's code again) — run in the sandbox package rather than on the
// host. The score is 100 × passed / checked over the languages the
// reference checks (cpp, python, php, javascript, typescript, ruby);
// responses in other languages are skipped, as it skips them.
//
// A language whose toolchain is not installed is counted as failed, as the
// reference counts a check whose compiler or interpreter cannot start,
// with a warning naming the Debian package to install.
package mbxp
