package benchmark

import (
	"context"
	"errors"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/harness"
	"io"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// A model that fixes its batch below --batch is refused before the run;
// one that warms up gets Instance.Warmups calls of --batch samples.
func TestFixedBatchAndWarmup(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	d := driverOf(b)
	open := d.open
	m := &batchModel{fixed: 4}
	d.open = func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
		inst, err := open(ctx, r)
		if err == nil {
			m.Model, inst.Model, inst.Warmups = inst.Model, m, 3
		}
		return inst, err
	}
	o := Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic", Data: "synthetic", Backend: "cpu", Out: t.TempDir(), Batch: 8}
	if _, err := Run(context.Background(), b, o, io.Discard, io.Discard); !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), "--batch 4") {
		t.Errorf("fixed batch 4 under --batch 8: %v", err)
	}
	if m.warmups != 0 {
		t.Errorf("a refused model was warmed up %d times", m.warmups)
	}
	o.Batch = 4
	if _, err := Run(context.Background(), b, o, io.Discard, io.Discard); err != nil {
		t.Fatalf("--batch 4: %v", err)
	}
	if m.warmups != 3 || m.warmupN != 4 {
		t.Errorf("warm-up: %d calls of %d samples, want 3 of 4", m.warmups, m.warmupN)
	}
	m.fixed = 0 // a dynamic batch takes any --batch
	o.Batch = 8
	if _, err := Run(context.Background(), b, o, io.Discard, io.Discard); err != nil {
		t.Fatalf("dynamic batch: %v", err)
	}
}

// batchModel is a harness.Model with a fixed batch that counts its
// warm-up calls.
type batchModel struct {
	harness.Model
	fixed            int
	warmups, warmupN int
}

func (m *batchModel) FixedBatch() int { return m.fixed }

func (m *batchModel) Warmup(_ context.Context, n, count int) error {
	m.warmups, m.warmupN = m.warmups+count, n
	return nil
}

func TestValidateRunsTheBenchmarksOptionCheck(t *testing.T) {
	// A benchmark's CheckOptions runs in Validate, before anything is built.
	b := echo(new(int))
	driverOf(b).check = func(o *spec.RunOptions) error { return spec.UsageError("bad %s", o.Extra["k"]) }
	o := Options{Scenario: loadgen.Offline, Model: "synthetic", Data: "d", Backend: "cpu", Extra: spec.Extra{"k": "v"}}
	if err := o.Validate(b); err == nil || err.Error() != "bad v" {
		t.Errorf("Check not applied: %v", err)
	}
}
