package hist

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func TestBucketsCoverEveryValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []int64{0, 1, 63, 64, 127, 128, 129, 255, 256, 1<<20 - 1, 1 << 20, 1<<62 + 12345, 1<<63 - 1}
	for range 10000 {
		vals = append(vals, r.Int64N(int64(1)<<uint(r.IntN(62)+1)))
	}
	for _, v := range vals {
		i := index(v)
		if i < 0 || i >= nBuckets {
			t.Fatalf("value %d: bucket %d out of range", v, i)
		}
		lo, w := bounds(i)
		if v < lo || v-lo >= w {
			t.Fatalf("value %d in bucket %d = [%d, %d+%d)", v, i, lo, lo, w)
		}
		if v >= 2*sub && float64(w)/float64(v) > 1.0/sub {
			t.Fatalf("value %d: bucket width %d over 1/%d of it", v, w, sub)
		}
	}
}

// TestDistAgainstExactPercentiles compares with LoadGen's exact rule
// (value at floor(n*p) of the sorted series) on a skewed sample.
func TestDistAgainstExactPercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h Hist
	vals := make([]int64, 20000)
	var sum int64
	for i := range vals {
		v := int64(r.ExpFloat64()*200_000) + 3000 // ns, exponential tail
		if i%1000 == 0 {
			v = 50_000_000 // outliers
		}
		vals[i] = v
		sum += v
		h.Record(v)
	}
	d := h.Dist()
	slices.Sort(vals)
	if d.Count != int64(len(vals)) || d.Min != vals[0] || d.Max != vals[len(vals)-1] || d.Mean != sum/int64(len(vals)) {
		t.Fatalf("count/min/max/mean %+v, want %d %d %d %d", d, len(vals), vals[0], vals[len(vals)-1], sum/int64(len(vals)))
	}
	for _, c := range []struct {
		p   float64
		got int64
	}{{0.5, d.P50}, {0.9, d.P90}, {0.99, d.P99}, {0.999, d.P999}} {
		want := vals[int(float64(len(vals))*c.p)]
		if diff := c.got - want; diff < -want/128-1 || diff > want/128+1 {
			t.Errorf("p%g = %d, exact %d: off by more than 1/128", c.p*100, c.got, want)
		}
	}
	h.Reset()
	if d := h.Dist(); d.Count != 0 || d.Max != 0 || d.Min != 0 {
		t.Errorf("after Reset: %+v", d)
	}
	h.Record(-5) // clamps to 0
	h.Record(7)
	if d := h.Dist(); d.Min != 0 || d.Max != 7 || d.Count != 2 || d.P50 != 7 {
		t.Errorf("after Reset and two values: %+v", d)
	}
}

// TestConcurrentRecord is for -race: every value recorded from many
// goroutines is counted once, while Dist reads alongside.
func TestConcurrentRecord(t *testing.T) {
	var h Hist
	var wg sync.WaitGroup
	const workers, each = 8, 5000
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				h.Record(int64(w*each + i))
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				_ = h.Dist()
			}
		}
	}()
	wg.Wait()
	close(done)
	d := h.Dist()
	if d.Count != workers*each || d.Min != 0 || d.Max != workers*each-1 || d.Mean != (workers*each-1)/2 {
		t.Fatalf("%+v", d)
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	var h Hist
	b.RunParallel(func(pb *testing.PB) {
		v := int64(1000)
		for pb.Next() {
			h.Record(v)
			v = v*7%1_000_003 + 1000
		}
	})
}
