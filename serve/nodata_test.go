package serve_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	go func() {
		done <- serve.Main(ctx, []string{"gptj", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1"}, &addrWriter{c: addrc}, io.Discard)
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

// TestMainArguments: -h prints the usage with the benchmarks and is
// flag.ErrHelp; no benchmark and a flag first are usage errors, an unknown benchmark is named; --sut of another kind is
// refused.
func TestMainArguments(t *testing.T) {
	ctx := context.Background()
	for _, h := range []string{"-h", "-help", "--help"} {
		var out bytes.Buffer
		if err := serve.Main(ctx, []string{h}, &out, io.Discard); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out.String(), "usage: mlperf serve <benchmark>") || !strings.Contains(out.String(), "resnet50") {
			t.Errorf("%s: %v, %q", h, err, out.String())
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "serve: want a benchmark"},
		{[]string{""}, "serve: want a benchmark"},
		{[]string{"--listen", ":1"}, "serve: want a benchmark"},
		{[]string{"nosuch"}, `unknown benchmark "nosuch"`},
		{[]string{"resnet50", "--sut", "fake"}, `serve: --sut "fake": want model or null`},
	} {
		err := serve.Main(ctx, c.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.args != nil && c.args[0] != "nosuch" && !errors.Is(err, spec.ErrUsage)) {
			t.Errorf("Main(%q): %v, want %q", c.args, err, c.want)
		}
	}
}
