package main

import (
	"errors"
	"github.com/mlperf-go/inference/benchmark/spec"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// TestLocalOnlyBenchmarksRefuseRemoteBackends: gptj, dlrm and sdxl refuse
// --backend kserve and openai in Options.Validate (before any data or
// model is looked at), saying which processing would stay on the LoadGen
// node; the tensor benchmarks that can run remotely are not refused, and
// the local-only ones still validate on a local backend.
func TestLocalOnlyBenchmarksRefuseRemoteBackends(t *testing.T) {
	why := map[string]string{"gptj": "beam search", "dlrm": "embedding tables", "sdxl": "sampling loop"}
	for _, name := range spec.Names() {
		b, _ := spec.Lookup(name)
		for _, be := range []string{"kserve", "openai"} {
			o := benchmark.Options{Scenario: loadgen.Offline, Backend: be, Endpoints: []string{"127.0.0.1:8000"}, Data: "/nonexistent/data"}
			err := o.Validate(b)
			refused := err != nil && strings.Contains(err.Error(), "is not available")
			if want, ok := why[name]; ok {
				if !refused || !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "nonexistent") {
					t.Errorf("%s --backend %s: %v; want a usage error about the %s, before the data", name, be, err, want)
				}
			} else if refused {
				t.Errorf("%s --backend %s refused as local-only: %v", name, be, err)
			}
		}
		if _, ok := why[name]; ok {
			o := benchmark.Options{Scenario: loadgen.Offline, Backend: "cpu", Model: "synthetic:tiny", Data: "synthetic", Extra: spec.Extra{}}
			for _, op := range b.Options { // the flags' defaults, as the CLI fills them
				if !op.Bool {
					o.Extra[op.Name] = op.Default
				}
			}
			if err := o.Validate(b); err != nil {
				t.Errorf("%s --backend cpu: %v", name, err)
			}
		}
	}
}
