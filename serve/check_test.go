package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve"
)

// Flag values a person might give to mlperf serve are refused with the
// form wanted, and good ones pass.
func TestCheckConfig(t *testing.T) {
	good := Config{Listen: "127.0.0.1:8000", Name: "node", Slots: 1, Drain: time.Second}
	for _, c := range []struct {
		mut  func(*Config)
		want string // "" means accepted
	}{
		{func(*Config) {}, ""},
		{func(c *Config) { c.Listen = ":0" }, ""},
		{func(c *Config) { c.Listen = "[::1]:8000" }, ""},
		{func(c *Config) { c.Listen = "localhost:http" }, ""},
		{func(c *Config) { c.Listen = "" }, "--listen is empty"},
		{func(c *Config) { c.Listen = "bogus" }, "not host:port"},
		{func(c *Config) { c.Listen = "8000" }, "write :8000 or 127.0.0.1:8000"},
		{func(c *Config) { c.Listen = ":99999" }, "port 99999 is outside 0 to 65535"},
		{func(c *Config) { c.Listen = ":-1" }, "port -1 is outside"},
		{func(c *Config) { c.Listen = ":65535" }, ""},
		{func(c *Config) { c.Listen = ":65536" }, "port 65536 is outside 0 to 65535"},
		{func(c *Config) { c.Listen = "bad host:80" }, "the host has a space"},
		{func(c *Config) { c.Listen = "127.0.0.1:nosuchservice" }, "nor a known service name"},
		{func(c *Config) { c.Listen = "http://127.0.0.1:8000" }, "without the http:// scheme"},
		{func(c *Config) { c.Listen = "grpc://127.0.0.1:8000" }, "without the grpc:// scheme"},
		{func(c *Config) { c.Listen = "127.0.0.1:8000/v2" }, "has no path"},
		{func(c *Config) { c.Slots = 0 }, "--slots 0: want at least 1"},
		{func(c *Config) { c.Slots = -1 }, "--slots -1: want at least 1"},
		{func(c *Config) { c.Drain = -time.Second }, "--drain -1s: a duration cannot be negative"},
		{func(c *Config) { c.Slots = 100000 }, "--slots 100000: more inferences at once than this machine can run"},
		{func(c *Config) { c.Slots = backend.MaxThreads() }, ""},
		{func(c *Config) { c.Slots = backend.MaxThreads() + 1 }, "more inferences at once than this machine can run"},
		{func(c *Config) { c.Drain = 0 }, ""},
		{func(c *Config) { c.Name = " " }, "--name is empty"},
		{func(c *Config) { c.MaxBatch = 1 }, ""},
		{func(c *Config) { c.MaxBatch = 0 }, ""},
		{func(c *Config) { c.MaxBatch = -1 }, "--max-batch -1: want at least 1 sample per request"},
		{func(c *Config) { c.MaxConns = 1 << 16 }, ""},
		{func(c *Config) { c.MaxConns = 1<<16 + 1 }, "--max-conns 65537: want 1 to 65536"},
		{func(c *Config) { c.MaxConns = -1 }, "--max-conns -1"},
		{func(c *Config) { c.MaxConns = 0 }, ""},
	} {
		cfg := good
		c.mut(&cfg)
		err := CheckConfig(cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want %q", cfg, err, c.want)
		}
	}
}

// A port already taken is named as such, with the fix.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = Serve(ctx, Config{Listen: ln.Addr().String()}, "m", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "the port is in use by another process") {
		t.Fatalf("port in use: %v", err)
	}
}

// A model with a zero dimension is refused before serving: every request
// to it would be empty.
func TestServeRefusesZeroDimensionModel(t *testing.T) {
	zero := &kserve.NullSession{In: []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 0, 224}}}}
	err := serveRefused(t, Config{Listen: "127.0.0.1:0"}, zero)
	if err == nil || !strings.Contains(err.Error(), `input "x" has shape [N,0,224]: a dimension of 0 makes every input empty`) {
		t.Errorf("zero dimension: %v", err)
	}
}

// serveRefused runs Serve on a model it should refuse before listening. If
// it serves instead, the test fails and the server is stopped at once, so
// that a missing check fails this test rather than hanging go test.
func serveRefused(t *testing.T, cfg Config, sess backend.Session) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Drain = time.Millisecond
	return Serve(ctx, cfg, "m", sess, func(addr string) {
		t.Errorf("the model was served at %s", addr)
		cancel()
	})
}

// A request memory budget over half the machine's memory is refused
// before serving, with the arithmetic and the flags to lower.
func TestServeRefusesABudgetOverTheMachine(t *testing.T) {
	big := &kserve.NullSession{In: []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 1 << 24}}}, Out: []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1}}}}
	err := serveRefused(t, Config{Listen: "127.0.0.1:0", Slots: 64, MaxBatch: 16}, big)
	if !errors.Is(err, backend.ErrTooLarge) || !strings.Contains(err.Error(), "lower --max-batch (now 16 samples per request) or --slots") || !strings.Contains(err.Error(), " × --slots 64 × ") {
		t.Errorf("64 slots of 16 × 64 MiB: %v", err)
	}
}

// versionOf: a module version wins; a development build gives the first 12
// digits of its VCS revision, and "devel" without one (or with a shorter one).
func TestVersionOf(t *testing.T) {
	rev := func(v string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: v}}
	}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev("0123456789abcdef")}, true, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev("0123456789abcdef")}, true, "0123456789ab"},
		{&debug.BuildInfo{Settings: rev("0123456789ab")}, true, "0123456789ab"},
		{&debug.BuildInfo{Settings: rev("0123456789a")}, true, "devel"},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "0123456789abcdef"}}}, true, "devel"},
	} {
		if got := versionOf(c.bi, c.ok); got != c.want {
			t.Errorf("versionOf(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}

// TestServeNotesTheRequestBounds: the note on the request bounds names
// --slots as Serve uses it (0 counts as 1) and the budget it multiplies
// out; serving stops when the test has read the address.
func TestServeNotesTheRequestBounds(t *testing.T) {
	small := &kserve.NullSession{In: []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 4}}}, Out: []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1}}}}
	for _, c := range []struct{ slots, used int }{{0, 1}, {3, 3}} {
		var notes bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		served := false
		err := Serve(ctx, Config{Listen: "127.0.0.1:0", Slots: c.slots, MaxBatch: 2, Drain: time.Millisecond, Notes: &notes}, "m", small, func(string) { served = true; cancel() })
		cancel()
		if err != nil || !served {
			t.Fatalf("slots %d: served %v, %v", c.slots, served, err)
		}
		want := fmt.Sprintf("(%d × --slots %d × (largest request + largest answer))", kserve.MemoryFactor, c.used)
		if !strings.HasPrefix(notes.String(), "requests to m: at most 2 samples and ") || !strings.Contains(notes.String(), want) {
			t.Errorf("slots %d: notes %q, want %q", c.slots, notes.String(), want)
		}
	}
}
