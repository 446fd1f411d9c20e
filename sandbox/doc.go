// Package sandbox runs untrusted programs — code a model wrote, as the
// MBXP scorer of Mixtral-8x7B and the LiveCodeBench scorer run it — one
// child process per program, each in its own temporary folder, under
// limits, and leaves nothing behind.
//
// A Sandbox is made once (New) and probes what the kernel allows. Each
// program then gets a Folder (its own temporary folder holding its source
// files) in which one or more Steps run (compile, then run), each as one
// child process tree:
//
//   - no network: a new network namespace (no interface but a loopback
//     that is down), where the kernel allows it;
//   - a new PID namespace: the program is process 1 of it, so when it exits
//     or is killed every process it started dies with it;
//   - as root, a user id of its own for each folder (drawn from an unused
//     range), so the program can write nowhere but its folder and the
//     world-writable folders (which are swept of its files afterwards), can
//     signal or trace no other process, and its process count is its own;
//     as another user, a user namespace gives the process count its own
//     account;
//   - limits set before the program starts (util-linux prlimit): CPU time
//     (RLIMIT_CPU), address space (RLIMIT_AS), processes and threads
//     (RLIMIT_NPROC), file size (RLIMIT_FSIZE), open files
//     (RLIMIT_NOFILE), no core dumps; and, enforced from outside, a
//     wall-clock timeout, a cap on the bytes kept of stdout and of stderr
//     and on the disk the folder may use, each killing the whole tree when
//     passed;
//   - the folder removed when the Folder is closed.
//
// Isolation reports which of these this machine gave; README.md says what
// the sandbox protects and what it does not.
//
// Languages describes how a language is compiled and run (after mxeval's
// check_correctness_* functions), which commands it needs and which
// Debian package provides each; RunProgram runs one program in one.
//
// A Sandbox is safe for concurrent use; a Folder runs one Step at a time.
package sandbox
