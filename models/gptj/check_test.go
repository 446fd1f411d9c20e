package gptj

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
)

// TestRemoteBackendsRefusedBeforeData: GPT-J's beam search cannot run
// behind --backend kserve or openai; the refusal comes from the option
// check, before any data file or model is looked at, and says why.
func TestRemoteBackendsRefusedBeforeData(t *testing.T) {
	for _, be := range []string{"kserve", "openai"} {
		o := &benchmark.Options{Backend: be, Data: "/nonexistent/cnn_eval.json", Extra: benchmark.Extra{"length-norm": "prompt"}}
		err := check(o)
		if err == nil || !errors.Is(err, benchmark.ErrUsage) || !strings.Contains(err.Error(), "beam search") || strings.Contains(err.Error(), "nonexistent") {
			t.Errorf("--backend %s: %v; want a usage error about beam search, before the data file", be, err)
		}
	}
	o := &benchmark.Options{Backend: "cpu", Data: "synthetic", Extra: benchmark.Extra{"length-norm": "prompt"}}
	if err := check(o); err != nil {
		t.Errorf("--backend cpu --data synthetic: %v", err)
	}
}
