// Package scripttest runs the benchmarks' shell scripts (download_*.sh,
// verify_dataset.sh, run_and_time.sh) from Go tests, which serve their
// downloads from a local httptest server.
package scripttest

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Run runs script with bash, the test process's environment plus env, and
// args; it returns the combined output and whether the script exited 0.
// The test is skipped where bash is not installed.
func Run(t testing.TB, script string, env []string, args ...string) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// RunIn is Run with the working directory dir and script's absolute
// path, as a user runs a benchmark's script from outside the clone.
func RunIn(t testing.TB, dir, script string, env []string, args ...string) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{abs}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// FakeMlperf writes an executable script standing in for the mlperf
// binary into dir: it prints "args: ARGS" and, for `mlperf deps REL`,
// prints depsDir/REL when that exists and fails as the binary does when
// it does not. It returns its path.
func FakeMlperf(t testing.TB, dir, depsDir string) string {
	t.Helper()
	p := filepath.Join(dir, "mlperf")
	script := `#!/usr/bin/env bash
if [ "$1" = deps ]; then
  if [ -e "` + depsDir + `/$2" ]; then echo "` + depsDir + `/$2"; exit 0; fi
  echo "mlperf deps: $2 not found; looked in: ` + depsDir + ` (per-user); run ` + "`make setup`" + `" >&2; exit 1
fi
echo "args: $*"
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// NeedDownloader skips the test unless bash, md5sum and curl or wget, which
// the download scripts use, are installed.
func NeedDownloader(t testing.TB) {
	t.Helper()
	for _, c := range []string{"md5sum", "bash"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not installed", c)
		}
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("neither curl nor wget installed")
		}
	}
}

// MD5Hex is the lower-case hex MD5 of b, as md5sum prints it.
func MD5Hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}
