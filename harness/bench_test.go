package harness

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// countCompleter counts completions and signals when a target is reached.
type countCompleter struct {
	mu   sync.Mutex
	n    int
	want int
	done chan struct{}
}

func (c *countCompleter) Complete(r ...loadgen.Response) {
	c.mu.Lock()
	c.n += len(r)
	if c.n == c.want {
		close(c.done)
	}
	c.mu.Unlock()
}

var nopModel = ModelFunc(func(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	for i := range out {
		out[i].Data = []byte{1, 2, 3, 4}
	}
	return nil
})

// BenchmarkPoolOffline measures the harness's own cost per sample: an
// Offline query of 4096 samples through a Pool around a model that does
// nothing.
func BenchmarkPoolOffline(b *testing.B) {
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			p := NewPool(nopModel, PoolConfig{Batch: batch, Workers: 1})
			defer p.Close()
			in := samples(4096)
			b.ReportAllocs()
			for b.Loop() {
				c := &countCompleter{want: len(in), done: make(chan struct{})}
				p.IssueQuery(context.Background(), in, c)
				<-c.done
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(in)), "ns/sample")
		})
	}
}

// BenchmarkPoolServer measures one-sample queries (Server traffic).
func BenchmarkPoolServer(b *testing.B) {
	p := NewPool(nopModel, PoolConfig{Batch: 1, Workers: 2})
	defer p.Close()
	in := samples(1)
	b.ReportAllocs()
	for b.Loop() {
		c := &countCompleter{want: 1, done: make(chan struct{})}
		p.IssueQuery(context.Background(), in, c)
		<-c.done
	}
}
