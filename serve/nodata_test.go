package serve_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark/spec"
	_ "github.com/mlperf-go/inference/models/gptj"
	"github.com/mlperf-go/inference/serve"
)

// TestServeNeedsNoDataSet: a serving node reads no data set (the LoadGen
// node sends the samples), so a benchmark whose option check looks for
// its data file (gptj) still serves.
func TestServeNeedsNoDataSet(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(os.TempDir(), "mlperf-go-test-cache"))
	ctx, stop := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	gptj, ok := spec.Lookup("gptj")
	if !ok {
		t.Fatal("gptj is not registered")
	}
	go func() {
		done <- serve.Run(ctx, tinyNode(gptj, "mlperf-serve"), &addrWriter{c: addrc}, io.Discard)
	}()
	select {
	case a := <-addrc:
		resp, err := http.Get("http://" + a + "/v2/models/gptj")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("model metadata: HTTP %d", resp.StatusCode)
		}
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve after shutdown: %v", err)
		}
	case err := <-done:
		stop()
		t.Fatalf("serve gptj ended before listening: %v", err)
	}
}
