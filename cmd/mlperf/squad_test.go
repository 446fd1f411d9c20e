package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDatasetSynthVerifySquad(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if rc := runMain([]string{"dataset", "synth", "squad", "-o", dir}, &out, &errb); rc != 0 {
		t.Fatalf("synth: rc %d: %s", rc, errb.String())
	}
	path := filepath.Join(dir, "dev-v1.1.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	vocab, err := filepath.Abs("../../.deps/bert/vocab.txt")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"dataset", "verify", "squad", "--data", path}
	if _, err := os.Stat(vocab); err == nil {
		args = append(args, "--features", "--vocab", vocab)
	}
	out.Reset()
	errb.Reset()
	if rc := runMain(args, &out, &errb); rc != 0 {
		t.Fatalf("verify: rc %d: %s", rc, errb.String())
	}
	if rc := runMain([]string{"dataset", "verify", "squad", "--data", path, "--official"}, &out, &errb); rc != 1 {
		t.Errorf("--official on a synthetic file: rc %d", rc)
	}
	bad := filepath.Join(dir, "v2.json")
	if err := os.WriteFile(bad, []byte(`{"version": "v2.0", "data": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if rc := runMain([]string{"dataset", "verify", "squad", "--data", bad}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "v2.0") {
		t.Errorf("SQuAD v2 file: rc %d, %s", rc, errb.String())
	}
	if rc := runMain([]string{"dataset", "synth", "squad"}, &out, &errb); rc != 2 {
		t.Errorf("synth without -o: rc %d", rc)
	}
	if rc := runMain([]string{"dataset", "synth", "squad", "-o", dir, "--size", "huge"}, &out, &errb); rc != 2 {
		t.Errorf("bad size: rc %d", rc)
	}
}
