package llmbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
)

// Parse: empty is the reference's value; Min and Max are accepted and
// one beyond either side is a usage error saying the range and why; the
// option's default and usage carry the reference's value.
func TestNewTokensBoundsBothSides(t *testing.T) {
	open := NewTokens{Bench: "llama2", Default: 1024, Min: 2, Why: TokenLatencyMin}
	bounded := NewTokens{Bench: "deepseek-r1", Default: 20000, Min: 2, Max: 1 << 20, Why: TokenLatencyMin}
	for _, c := range []struct {
		n    NewTokens
		v    string
		want int
		err  string
	}{
		{open, "", 1024, ""},
		{open, "2", 2, ""},
		{open, "5000000", 5000000, ""},
		{open, "1", 0, "llama2: --max-new-tokens 1: want at least 2 (with token latencies LoadGen needs n_tokens > 1)"},
		{open, "x", 0, "llama2: --max-new-tokens x: want at least 2"},
		{bounded, "", 20000, ""},
		{bounded, "1048576", 1 << 20, ""},
		{bounded, "1048577", 0, "deepseek-r1: --max-new-tokens 1048577: want 2 to 1048576 (with token latencies LoadGen needs n_tokens > 1)"},
		{bounded, "1", 0, "want 2 to 1048576"},
	} {
		got, err := c.n.Parse(spec.Extra{"max-new-tokens": c.v})
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s %q: %d, %v; want %d", c.n.Bench, c.v, got, err, c.want)
		case c.err != "" && (err == nil || !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %q: %v; want a usage error %q", c.n.Bench, c.v, err, c.err)
		}
	}
	if o := open.Option(); o.Name != "max-new-tokens" || o.Default != "1024" || !strings.Contains(o.Usage, "(the reference: 1024;") {
		t.Errorf("option %+v", o)
	}
	var w bytes.Buffer
	open.NoteNonCompliant(&w, 1024)
	if w.Len() != 0 {
		t.Errorf("the reference's value noted: %q", w.String())
	}
	open.NoteNonCompliant(&w, 8)
	if w.String() != "llama2: --max-new-tokens 8 (the reference generates up to 1024): not a compliant run\n" {
		t.Errorf("note %q", w.String())
	}
}

// ScoreDType: int32 by default, int32 or int64 when given, any other
// element type a usage error naming the benchmark.
func TestScoreDType(t *testing.T) {
	for s, want := range map[string]accuracy.DType{"": accuracy.Int32, "int32": accuracy.Int32, "int64": accuracy.Int64} {
		if dt, err := ScoreDType("llama2", s); err != nil || dt != want {
			t.Errorf("%q: %v %v; want %v", s, dt, err, want)
		}
	}
	for _, s := range []string{"float32", "uint8", "nope"} {
		if _, err := ScoreDType("mixtral", s); !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), `mixtral: --dtype "`+s+`": want int32 or int64`) {
			t.Errorf("%q: %v", s, err)
		}
	}
}

// NoteUnusedCache speaks only when --cache is given.
func TestNoteUnusedCache(t *testing.T) {
	var w bytes.Buffer
	NoteUnusedCache(&spec.OpenRequest{RunOptions: spec.RunOptions{}, Stderr: &w}, "llama2")
	if w.Len() != 0 {
		t.Errorf("no --cache: %q", w.String())
	}
	env := &spec.OpenRequest{Stderr: &w}
	env.Cache = "c"
	NoteUnusedCache(env, "llama2")
	if w.String() != "llama2: --cache is not used: the prompts are tokenized already in the data set\n" {
		t.Errorf("--cache: %q", w.String())
	}
}

// After reports the counts; it checks TEST06 only in a compliance run
// (an audit.config given) of a benchmark with TEST06: then a missing
// accuracy log is its error.
func TestAfterChecksTEST06OnlyInACompliance06Run(t *testing.T) {
	for _, c := range []struct {
		audit  string
		test06 bool
		fails  bool
	}{{"", true, false}, {"audit.config", false, false}, {"audit.config", true, true}} {
		var w bytes.Buffer
		env := &spec.OpenRequest{Stderr: &w, Stdout: &w}
		env.AuditConf, env.Out, env.Scenario = c.audit, t.TempDir(), loadgen.Offline
		err := After(env, Wrap(nil, true), "llama2", "generated tokens", c.test06, 2)(context.Background(), nil)
		if (err != nil) != c.fails || !strings.HasPrefix(w.String(), "llama2: 0 samples, 0 generated tokens\n") {
			t.Errorf("audit %q test06 %v: %v, wrote %q", c.audit, c.test06, err, w.String())
		}
		if c.fails {
			if _, serr := os.Stat(filepath.Join(env.Out, "mlperf_log_accuracy.json")); serr == nil || !strings.Contains(err.Error(), "mlperf_log_accuracy.json") {
				t.Errorf("TEST06 error %v does not name the missing log", err)
			}
		}
	}
}
