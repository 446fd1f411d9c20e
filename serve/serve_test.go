package serve

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve"
)

// slow answers after a delay, so a shutdown has a request in flight.
type slow struct{ d time.Duration }

func (slow) Inputs() []backend.Info {
	return []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1}}}
}
func (slow) Outputs() []backend.Info {
	return []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1}}}
}
func (s slow) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	time.Sleep(s.d)
	return []backend.Tensor{{Name: "y", DType: backend.Float32, Shape: in[0].Shape, Data: in[0].Data}}, nil
}
func (slow) Close() error { return nil }

func TestShutdownDrainsRequestsInFlight(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Listen: "127.0.0.1:0", Name: "node", Slots: 4}, "m", slow{300 * time.Millisecond}, func(a string) { addrc <- a })
	}()
	addr := <-addrc
	sess, err := kserve.Dial(context.Background(), kserve.Config{Endpoint: addr, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = sess.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1}, Data: []float32{1}}})
		}()
	}
	time.Sleep(100 * time.Millisecond) // the requests are in flight
	stop()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d in flight at shutdown failed: %v", i, err)
		}
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := sess.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1}, Data: []float32{1}}}); err == nil {
		t.Error("a request after shutdown succeeded")
	}
}

func TestNullServesTheContract(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- Serve(ctx, Config{Listen: "127.0.0.1:0", Name: "node", Null: true}, "m", slow{time.Hour}, func(a string) { addrc <- a })
	}()
	var addr string
	select { // a guard, not a timing: Serve failing or hanging ends the test
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("Serve: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("Serve did not listen within a minute")
	}
	sess, err := kserve.Dial(context.Background(), kserve.Config{Endpoint: addr, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{5}, Data: make([]float32, 5)}})
	if err != nil || len(out[0].Data.([]float32)) != 5 {
		t.Fatalf("null answer %v, %v", out, err)
	}
	if err := Serve(ctx, Config{Listen: "nonsense"}, "m", slow{}, nil); err == nil || !strings.Contains(err.Error(), "listen on nonsense") {
		t.Errorf("bad listen address: %v", err)
	}
}
