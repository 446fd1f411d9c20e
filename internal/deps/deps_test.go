package deps

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every side file the benchmarks look up is found in a per-user folder
// from XDG_DATA_HOME or HOME, when no clone's .deps has it.
func TestFindInPerUserFolder(t *testing.T) {
	work := t.TempDir()
	xdg, home := t.TempDir(), t.TempDir()
	for _, rel := range []string{"onnxruntime/libonnxruntime.so.1", "bert/vocab.txt", "gptj/vocab.bpe", "llama2/llama-tokenizer.js", "ollama/ollama"} {
		touch(t, filepath.Join(xdg, "mlperf-go", "deps", rel))
		touch(t, filepath.Join(home, ".local", "share", "mlperf-go", "deps", rel))
		l := Lookup{Getenv: env("XDG_DATA_HOME", xdg, "HOME", home), Cwd: work, Exe: filepath.Join(work, "mlperf")}
		if got, err := l.Find(rel); err != nil || got != filepath.Join(xdg, "mlperf-go", "deps", rel) {
			t.Errorf("%s with XDG_DATA_HOME: %q, %v", rel, got, err)
		}
		l.Getenv = env("HOME", home, "XDG_DATA_HOME", "relative/ignored")
		if got, err := l.Find(rel); err != nil || got != filepath.Join(home, ".local", "share", "mlperf-go", "deps", rel) {
			t.Errorf("%s with HOME: %q, %v", rel, got, err)
		}
	}
	// A clone's .deps comes first, and $MLPERF_DEPS before it.
	clone := filepath.Join(work, "clone")
	touch(t, filepath.Join(clone, ".deps", "bert", "vocab.txt"))
	sub := filepath.Join(clone, "models", "bert")
	os.MkdirAll(sub, 0o755)
	l := Lookup{Getenv: env("HOME", home), Cwd: sub}
	if got, _ := l.Find("bert/vocab.txt"); got != filepath.Join(clone, ".deps", "bert", "vocab.txt") {
		t.Errorf("clone's .deps not first: %q", got)
	}
	other := t.TempDir()
	touch(t, filepath.Join(other, "bert", "vocab.txt"))
	l.Getenv = env("HOME", home, Env, other)
	if got, _ := l.Find("bert/vocab.txt"); got != filepath.Join(other, "bert", "vocab.txt") {
		t.Errorf("$%s not first: %q", Env, got)
	}
}

// The not-found message names each place once and the fix.
func TestNotFoundListsEachPlaceOnce(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	deps := t.TempDir()
	l := Lookup{Getenv: env("HOME", root, Env, deps), Cwd: bin, Exe: filepath.Join(bin, "mlperf")}
	_, err := l.Find("gptj/vocab.bpe")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	for _, p := range []string{
		filepath.Join(deps, "gptj", "vocab.bpe"),
		filepath.Join(bin, ".deps", "gptj", "vocab.bpe"),
		filepath.Join(root, ".local", "share", "mlperf-go", "deps", "gptj", "vocab.bpe"),
	} {
		if n := strings.Count(msg, p); n != 1 {
			t.Errorf("%s named %d times in %q", p, n, msg)
		}
	}
	// The executable's parent is a parent of the working directory: not
	// named again.
	if strings.Contains(msg, filepath.Join(root, ".deps")) {
		t.Errorf("parent folder named separately: %q", msg)
	}
	for _, fix := range []string{"make setup", Env} {
		if !strings.Contains(msg, fix) {
			t.Errorf("message lacks %q: %q", fix, msg)
		}
	}
	if ps := l.Places("gptj/vocab.bpe"); len(ps) < 4 || ps[0] != filepath.Join(deps, "gptj", "vocab.bpe") {
		t.Errorf("places %v", ps)
	}
}

// scripts/setup.d/90-user-deps.sh installs what setup put into a deps
// folder into the per-user folder Find searches, as real files (not
// symlinks), idempotently.
func TestSetupInstallsPerUserCopy(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found: the setup scripts need it")
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "setup.d", "90-user-deps.sh"))
	src, home := t.TempDir(), t.TempDir()
	rels := []string{"onnxruntime/libonnxruntime.so.1", "bert/vocab.txt", "gptj/encoder.json", "gptj/vocab.bpe", "llama2/llama-tokenizer.js"}
	for _, rel := range rels {
		touch(t, filepath.Join(src, rel))
	}
	run := func() string {
		cmd := exec.Command(bash, script, src)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME=", "MLPERF_SKIP_USER_DEPS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	if out := run(); !strings.Contains(out, "installed") {
		t.Fatalf("first run installed nothing: %q", out)
	}
	l := Lookup{Getenv: env("HOME", home), Cwd: t.TempDir()}
	for _, rel := range rels {
		p, err := l.Find(rel)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("%s is not a regular file: %v", p, err)
		}
	}
	if out := run(); out != "" {
		t.Fatalf("second run not idempotent: %q", out)
	}
	// An updated file in the deps folder is installed again; removing the
	// deps folder leaves the per-user copy working.
	os.Remove(filepath.Join(src, "bert", "vocab.txt"))
	os.WriteFile(filepath.Join(src, "bert", "vocab.txt"), []byte("new"), 0o644)
	if out := run(); !strings.Contains(out, "bert/vocab.txt") || strings.Contains(out, "gptj") {
		t.Fatalf("update: %q", out)
	}
	os.RemoveAll(src)
	if b, err := os.ReadFile(filepath.Join(l.UserDir(), "bert", "vocab.txt")); err != nil || string(b) != "new" {
		t.Fatalf("per-user copy after the deps folder is gone: %q, %v", b, err)
	}
}
