package loadgen_test

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// TestSamplesCarryTheirScheduledTime: in Server every issued sample
// carries its query's due time, no later than the IssueQuery call and
// consistent with the logged issue lag; in the other scenarios it is zero.
func TestSamplesCarryTheirScheduledTime(t *testing.T) {
	for _, sc := range []loadgen.Scenario{loadgen.Server, loadgen.SingleStream, loadgen.Offline} {
		var mu sync.Mutex
		var lags []time.Duration
		zero := 0
		sut := &loadgentest.NullSUT{OnIssue: func(samples []loadgen.Sample) {
			now := loadgen.Now()
			mu.Lock()
			defer mu.Unlock()
			for _, s := range samples {
				if s.Scheduled.IsZero() {
					zero++
					continue
				}
				lags = append(lags, now.Sub(s.Scheduled))
			}
		}}
		s := settings(t, sc, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 200\n*.Server.target_qps = 2000\n*.Offline.target_qps = 2000\n")
		res, _ := run(t, sut, qsl1024(), s)
		mu.Lock()
		if sc != loadgen.Server {
			if len(lags) != 0 {
				t.Errorf("%v: %d samples carry a scheduled time; want none", sc, len(lags))
			}
			mu.Unlock()
			continue
		}
		if zero != 0 || len(lags) != res.SampleCount {
			t.Fatalf("Server: %d of %d samples carry a scheduled time, %d do not", len(lags), res.SampleCount, zero)
		}
		var worst time.Duration
		for _, l := range lags {
			if l < 0 {
				t.Fatalf("Server: a sample was issued %v before its scheduled time", -l)
			}
			worst = max(worst, l)
		}
		// The largest lag seen in IssueQuery is at least the loadgen's own
		// largest issue lag (measured just before the call).
		if worst < time.Duration(res.IssueLag.Max) {
			t.Errorf("Server: largest lag at IssueQuery %v, below the logged issue lag max %v", worst, time.Duration(res.IssueLag.Max))
		}
		mu.Unlock()
	}
}

// TestInstantIsTheMonotonicClock: Now and InstantOf read one clock, in
// ns, and no reading is the zero Instant ("none").
func TestInstantIsTheMonotonicClock(t *testing.T) {
	t0 := time.Now()
	i0 := loadgen.InstantOf(t0)
	if i0.IsZero() || loadgen.Now().IsZero() {
		t.Fatal("a clock reading is the zero Instant")
	}
	if got := loadgen.InstantOf(t0.Add(5 * time.Millisecond)).Sub(i0); got != 5*time.Millisecond {
		t.Errorf("InstantOf(t0+5ms) - InstantOf(t0) = %v", got)
	}
	if now := loadgen.Now(); now < i0 {
		t.Errorf("Now() %d is before an earlier reading %d", now, i0)
	}
}

// TestSampleHoldsNoPointers: the run's []Sample (a million entries in
// an Offline run) must give the garbage collector nothing to scan; a
// pointer in Sample made every GC cycle scan it and preempt the issuer.
func TestSampleHoldsNoPointers(t *testing.T) {
	var walk func(reflect.Type) bool
	walk = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				if !walk(ty.Field(i).Type) {
					return false
				}
			}
			return true
		case reflect.Array:
			return walk(ty.Elem())
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return false
		}
		return true
	}
	if !walk(reflect.TypeOf(loadgen.Sample{})) {
		t.Fatal("loadgen.Sample holds a pointer")
	}
}
