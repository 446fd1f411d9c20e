package unet3d

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/kits19"
)

// TestMain shares one cache folder (synthetic model and data) between
// the package's tests.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "unet3d-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("MLPERF_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// writeLog writes an mlperf_log_accuracy.json with one entry per volume.
func writeLog(t *testing.T, vols [][]uint8) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for i, v := range vols {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }`, i, i, strings.ToUpper(hex.EncodeToString(v)))
	}
	b.WriteString("\n]\n")
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoreAgainstTruth: the synthetic set's own ground truth scores a
// mean DICE of 1; an all-background prediction scores 0 (truth has both
// classes); a missing case is an error.
func TestScoreAgainstTruth(t *testing.T) {
	raw := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := dataset.Synth(&spec.DatasetRequest{Out: raw, N: 1, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	req := &spec.DatasetRequest{Data: raw, Out: t.TempDir(), Extra: spec.Extra{"cases": "inference"}, Stdout: &stdout, Stderr: &stderr}
	if err := dataset.Preprocess(req); err == nil || !strings.Contains(err.Error(), "case_00003") {
		t.Fatalf("preprocess of a synthetic set as the inference set: %v", err)
	}
	req.Extra["cases"] = "everything"
	if err := dataset.Preprocess(req); err == nil || !strings.Contains(err.Error(), "--cases") {
		t.Fatalf("bad --cases: %v", err)
	}
	// The synthetic data set a run uses (shared by the package's tests).
	pre, _, err := resolveData(syntheticDataArg, benchmark.CacheDir(), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	var truth, zero [][]uint8
	for _, c := range kits19.SynthCaseNames(kits19.SynthDefault) {
		gt, err := kits19.LoadTruth(pre, c)
		if err != nil {
			t.Fatal(err)
		}
		truth, zero = append(truth, gt), append(zero, make([]uint8, len(gt)))
	}
	for _, tc := range []struct {
		vols [][]uint8
		want string
	}{
		{truth, "Accuracy: mean = 1.00000, kidney = 1.0000, tumor = 1.0000"},
		{zero, "Accuracy: mean = 0.00000, kidney = 0.0000, tumor = 0.0000"},
	} {
		sc, err := descriptor.Driver.Score(context.Background(), &spec.ScoreRequest{Log: writeLog(t, tc.vols), Data: syntheticDataArg, CacheDir: benchmark.CacheDir()})
		if err != nil || len(sc.Lines) != 1 || sc.Lines[0] != tc.want {
			t.Errorf("score = %+v, %v; want %q", sc, err, tc.want)
		}
	}
	if _, err := descriptor.Driver.Score(context.Background(), &spec.ScoreRequest{Log: writeLog(t, truth[:1]), Data: pre}); err == nil || !strings.Contains(err.Error(), "case_00001") {
		t.Errorf("a log missing a case: %v", err)
	}
	// --count 1 scores the first case only.
	sc, err := descriptor.Driver.Score(context.Background(), &spec.ScoreRequest{Log: writeLog(t, truth[:1]), Data: pre, Count: 1})
	if err != nil || !strings.HasPrefix(sc.Lines[0], "Accuracy: mean = 1.00000") {
		t.Errorf("--count 1: %+v, %v", sc, err)
	}
	// --count at and past the number of cases scores them all.
	for _, n := range []int{len(truth), len(truth) + 1} {
		sc, err := descriptor.Driver.Score(context.Background(), &spec.ScoreRequest{Log: writeLog(t, truth), Data: pre, Count: n})
		if err != nil || sc.Lines[0] != "Accuracy: mean = 1.00000, kidney = 1.0000, tumor = 1.0000" {
			t.Errorf("--count %d of %d cases: %+v, %v", n, len(truth), sc, err)
		}
	}
}

// TestOpenWarnsARemoteRunIsNotNetworkConformant: with a remote backend the
// sliding window runs on the LoadGen node, which the Network division
// does not allow, and Open says so (before reading the data); with a
// local backend it says nothing of it.
func TestOpenWarnsARemoteRunIsNotNetworkConformant(t *testing.T) {
	for _, remote := range []bool{true, false} {
		var stderr bytes.Buffer
		_, err := driver{}.Open(context.Background(), &spec.OpenRequest{RunOptions: spec.RunOptions{Remote: remote, Backend: "kserve", Data: filepath.Join(t.TempDir(), "none")}, Stderr: &stderr})
		if err == nil {
			t.Fatalf("remote %v: Open of a missing data folder succeeded", remote)
		}
		warned := strings.Contains(stderr.String(), "unet3d: --backend kserve sends each sliding-window patch as a request") && strings.Contains(stderr.String(), "not a conformant Network division run")
		if warned != remote {
			t.Errorf("remote %v: stderr %q", remote, stderr.String())
		}
	}
}
