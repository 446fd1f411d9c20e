package sdxl

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
)

// TestRemoteBackendsRefused: the sampling loop cannot leave this
// process, so both remote backends are refused up front, saying why.
func TestRemoteBackendsRefused(t *testing.T) {
	for _, be := range []string{"kserve", "openai"} {
		err := checkRemote(&benchmark.Options{Backend: be})
		if !errors.Is(err, benchmark.ErrUsage) || !strings.Contains(err.Error(), "sampling loop") {
			t.Errorf("--backend %s: %v", be, err)
		}
	}
	if err := checkRemote(&benchmark.Options{Backend: "cpu"}); err != nil {
		t.Errorf("--backend cpu: %v", err)
	}
}
