package schedule

import (
	"encoding/csv"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/loadgen/rng"
)

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("../testdata/golden/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return r[1:]
}

func base(s Scenario, minq uint64) Params {
	return Params{Scenario: s, QSLSeed: 2085463073848966840, SampleIndexSeed: 2747215439041700203,
		ScheduleSeed: 16159082839903944936, TotalSampleCount: 1024, PerformanceSampleCount: 1024,
		SamplesPerQuery: 1, MinQueryCount: minq, TargetDurationNs: 1e9, TargetQPS: 100}
}

func TestGolden(t *testing.T) {
	sets := LoadableSets(base(SingleStream, 100))
	for _, r := range readCSV(t, "qsl_load_set_total1024_perf1024.csv") {
		c, _ := strconv.Atoi(r[0])
		i, _ := strconv.Atoi(r[1])
		if strconv.FormatUint(sets[c][i], 10) != r[2] {
			t.Fatalf("set %d pos %d = %d, want %s", c, i, sets[c][i], r[2])
		}
	}
	q := Generate(base(SingleStream, 100), sets[0])
	for _, r := range readCSV(t, "singlestream_perf_first64_minq100.csv") {
		i, _ := strconv.Atoi(r[0])
		if strconv.FormatUint(q.Samples[i], 10) != r[2] {
			t.Fatalf("SS query %d = %d, want %s", i, q.Samples[i], r[2])
		}
	}
	q = Generate(base(Server, 100), sets[0])
	for _, r := range readCSV(t, "server_sched_first64_qps100.csv") {
		i, _ := strconv.Atoi(r[0])
		if strconv.FormatUint(q.Samples[i], 10) != r[2] || strconv.FormatInt(q.Scheduled[i], 10) != r[1] {
			t.Fatalf("server query %d = %d@%d, want %s@%s", i, q.Samples[i], q.Scheduled[i], r[2], r[1])
		}
	}
}

func TestGoldenOrders(t *testing.T) {
	ms := base(MultiStream, 662)
	ms.SamplesPerQuery, ms.TargetDurationNs, ms.TargetQPS = 8, 0, 125
	acc := base(SingleStream, 100)
	acc.Accuracy = true
	ss := func(minq uint64) Params {
		p := base(SingleStream, minq)
		p.TargetDurationNs = 0
		p.TargetQPS = 1000
		return p
	}
	ss0 := ss(0)
	ss0.TargetDurationNs, ss0.TargetQPS = 1e6, 1e5
	for _, c := range []struct {
		file string
		p    Params
		col  int
	}{
		{"multistream_perf_first64queries_spq8_minq662.csv", ms, 3},
		{"singlestream_accuracy_order.csv", acc, 2},
		{"singlestream_perf_first64_minq0.csv", ss0, 2},
		{"singlestream_perf_first64_minq1025.csv", ss(1025), 2},
		{"singlestream_perf_first64_minq4096.csv", ss(4096), 2},
		{"singlestream_perf_first4096_minq4096.csv", ss(4096), 2},
	} {
		q := Generate(c.p, LoadableSets(c.p)[0])
		for i, r := range readCSV(t, c.file) {
			if i >= len(q.Samples) || strconv.FormatUint(q.Samples[i], 10) != r[c.col] {
				t.Fatalf("%s row %d: got %v, want %s", c.file, i, q.Samples[min(i, len(q.Samples)-1)], r[c.col])
			}
		}
	}
}

func TestGoldenOfflineAndPadding(t *testing.T) {
	off := base(Offline, 1)
	off.SamplesPerQuery = 1100
	q := Generate(off, LoadableSets(off)[0])
	for i, r := range readCSV(t, "offline_perf_first64.csv") {
		if strconv.FormatUint(q.Samples[i], 10) != r[1] {
			t.Fatalf("offline pos %d = %d, want %s", i, q.Samples[i], r[1])
		}
	}
	ms := base(MultiStream, 662)
	ms.SamplesPerQuery = 8
	sets := LoadableSets(ms)
	rows := readCSV(t, "multistream_qsl_load_set_padded.csv")
	if len(rows) != len(sets[0]) {
		t.Fatalf("padded set has %d entries, want %d", len(sets[0]), len(rows))
	}
	for _, r := range rows {
		i, _ := strconv.Atoi(r[1])
		if strconv.FormatUint(sets[0][i], 10) != r[2] {
			t.Fatalf("padded pos %d = %d, want %s", i, sets[0][i], r[2])
		}
	}
}

func TestGoldenServer10000(t *testing.T) {
	p := base(Server, 100)
	p.TargetQPS = 10000
	q := Generate(p, LoadableSets(p)[0])
	for i, r := range readCSV(t, "server_sched_first64_qps10000.csv") {
		if strconv.FormatUint(q.Samples[i], 10) != r[2] || strconv.FormatInt(q.Scheduled[i], 10) != r[1] {
			t.Fatalf("query %d = %d@%d, want %s@%s", i, q.Samples[i], q.Scheduled[i], r[2], r[1])
		}
	}
}

func TestGoldenServerModel10000(t *testing.T) {
	p := base(Server, 100)
	p.TargetDurationNs = 200e9
	q := Generate(p, LoadableSets(p)[0])
	for i, r := range readCSV(t, "server_sched_model_first10000_qps100.csv") {
		if strconv.FormatInt(q.Scheduled[i], 10) != r[1] {
			t.Fatalf("query %d at %d, want %s", i, q.Scheduled[i], r[1])
		}
	}
}

// LoadGen generates N+1 queries for a fixed period: the first at t=0 and
// the last at or past the horizon (twice min_duration for SingleStream).
func TestFixedPeriodGeneratesNPlusOneQueries(t *testing.T) {
	p := Params{Scenario: SingleStream, SampleIndexSeed: 1, PerformanceSampleCount: 16, TotalSampleCount: 16,
		SamplesPerQuery: 1, TargetDurationNs: 20_000_000, TargetQPS: 100_000}
	loaded := make([]uint64, 16)
	q := Generate(p, loaded)
	if n := len(q.Scheduled); n != 4001 {
		t.Fatalf("%d queries, want 4001", n)
	}
	if last := q.Scheduled[len(q.Scheduled)-1]; last != 40_000_000 {
		t.Fatalf("last query at %d ns, want 40000000", last)
	}
	p.TargetDurationNs, p.MinQueryCount = 0, 0
	if q := Generate(p, loaded); len(q.Scheduled) != 0 {
		t.Fatalf("%d queries with no duration and no minimum, want 0", len(q.Scheduled))
	}
}

// TEST04: performance_issue_same issues one sample over and over (its
// block in MultiStream); performance_issue_unique draws each loaded
// position once, in the order of the eager "unique" shuffle.
func TestIssueSameAndUnique(t *testing.T) {
	loaded := make([]uint64, 64)
	for i := range loaded {
		loaded[i] = uint64(1000 + i)
	}
	base := Params{Scenario: SingleStream, SampleIndexSeed: 7, PerformanceSampleCount: 64, TotalSampleCount: 64,
		SamplesPerQuery: 1, MinQueryCount: 64, TargetQPS: 1000}
	same := base
	same.IssueSame, same.IssueSameIndex = true, 3
	for _, s := range Generate(same, loaded).Samples {
		if s != 1003 {
			t.Fatalf("issue_same gave sample %d, want 1003", s)
		}
	}
	uniq := base
	uniq.IssueUnique = true
	got := Generate(uniq, loaded).Samples
	seen := map[uint64]bool{}
	for _, s := range got[:64] {
		seen[s] = true
	}
	if len(seen) != 64 {
		t.Fatalf("issue_unique repeated samples: %d distinct of 64", len(seen))
	}
	// In performance mode the main distribution draws nothing up front, so
	// the unique shuffle is g's first shuffle: the accuracy-mode order.
	acc := base
	acc.Accuracy = true
	accOrder := Generate(acc, loaded).Samples
	for i := range accOrder {
		if got[i] != accOrder[i] {
			t.Fatalf("unique order differs from the accuracy order at %d: %d vs %d", i, got[i], accOrder[i])
		}
	}
	off := Params{Scenario: Offline, PerformanceSampleCount: 64, TotalSampleCount: 64, SamplesPerQuery: 100, IssueSame: true, IssueSameIndex: 5}
	for _, s := range Generate(off, loaded).Samples {
		if s != 1005 {
			t.Fatalf("Offline issue_same gave %d", s)
		}
	}
}

// Equal issue: every loaded sample is issued equally often over each run
// of L queries.
func TestEqualIssueIssuesEverySampleOncePerSet(t *testing.T) {
	loaded := make([]uint64, 32)
	for i := range loaded {
		loaded[i] = uint64(i)
	}
	p := Params{Scenario: SingleStream, SampleIndexSeed: 9, PerformanceSampleCount: 32, TotalSampleCount: 32,
		SamplesPerQuery: 1, MinQueryCount: 96, TargetQPS: 1000, EqualIssue: true}
	got := Generate(p, loaded).Samples
	if len(got) < 96 {
		t.Fatalf("%d samples", len(got))
	}
	for set := 0; set < 3; set++ {
		seen := map[uint64]bool{}
		for _, s := range got[set*32 : (set+1)*32] {
			seen[s] = true
		}
		if len(seen) != 32 {
			t.Fatalf("set %d: %d distinct samples of 32", set, len(seen))
		}
	}
	off := Params{Scenario: Offline, SampleIndexSeed: 9, PerformanceSampleCount: 32, TotalSampleCount: 32, SamplesPerQuery: 64, EqualIssue: true}
	q := Generate(off, loaded).Samples
	counts := map[uint64]int{}
	for _, s := range q {
		counts[s]++
	}
	for i := range loaded {
		if counts[uint64(i)] != 2 {
			t.Fatalf("Offline equal issue: sample %d issued %d times, want 2", i, counts[uint64(i)])
		}
	}
}

// Equal issue as LoadGen's GenerateQueries does it: Offline pads the query
// to a multiple of the loaded set (not of performance_sample_count, which
// may exceed the data set), SingleStream and Server pad the query count to
// a multiple of the set and add whole sets while the horizon is not reached,
// the helper's permutations wrap around, and MultiStream keeps its uniform
// starts.
func TestEqualIssuePadsToTheLoadedSet(t *testing.T) {
	loaded := []uint64{7, 3, 5}
	off := Params{Scenario: Offline, SampleIndexSeed: 9, PerformanceSampleCount: 13368, TotalSampleCount: 3,
		SamplesPerQuery: 4, EqualIssue: true}
	q := Generate(off, loaded)
	if q.SamplesPerQuery != 6 || len(q.Samples) != 6 {
		t.Fatalf("Offline: spq %d, %d samples; want 6 (4 padded to a multiple of the 3 loaded)", q.SamplesPerQuery, len(q.Samples))
	}
	for _, sc := range []Scenario{SingleStream, Server} {
		for _, minQ := range []uint64{1, 4, 7} {
			// 10 ms at 1000 QPS: the horizon alone asks for about 10
			// queries (20 for SingleStream, twice the duration).
			p := Params{Scenario: sc, SampleIndexSeed: 9, ScheduleSeed: 4, PerformanceSampleCount: 3, TotalSampleCount: 3,
				SamplesPerQuery: 1, MinQueryCount: minQ, TargetQPS: 1000, TargetDurationNs: 10e6, EqualIssue: true}
			got := Generate(p, loaded).Samples
			if len(got)%3 != 0 || uint64(len(got)) < minQ {
				t.Errorf("%v min %d: %d queries, want a multiple of 3 and at least %d", sc, minQ, len(got), minQ)
			}
			counts := map[uint64]int{}
			for _, s := range got {
				counts[s]++
			}
			if counts[7] != counts[3] || counts[3] != counts[5] {
				t.Errorf("%v min %d: issue counts %v, want equal", sc, minQ, counts)
			}
			plain := p
			plain.TargetDurationNs = 0
			if n := len(Generate(plain, loaded).Samples); uint64(n) != (minQ+2)/3*3 {
				t.Errorf("%v min %d, no duration: %d queries, want %d", sc, minQ, n, (minQ+2)/3*3)
			}
		}
	}
	// The helper holds ceil(min/L) permutations and wraps: with min 3 and
	// a long horizon, every block of 3 repeats the first.
	p := Params{Scenario: Server, SampleIndexSeed: 9, ScheduleSeed: 4, PerformanceSampleCount: 3, TotalSampleCount: 3,
		SamplesPerQuery: 1, MinQueryCount: 3, TargetQPS: 1000, TargetDurationNs: 20e6, EqualIssue: true}
	got := Generate(p, loaded).Samples
	for i := 3; i < len(got); i++ {
		if got[i] != got[i%3] {
			t.Fatalf("query %d: sample %d, want the wrapped helper's %d (%v)", i, got[i], got[i%3], got)
		}
	}
	ms := Params{Scenario: MultiStream, SampleIndexSeed: 9, PerformanceSampleCount: 8, TotalSampleCount: 8,
		SamplesPerQuery: 2, MinQueryCount: 5, TargetQPS: 1000}
	msLoaded := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 0}
	a := Generate(ms, msLoaded).Samples
	ms.EqualIssue = true
	b := Generate(ms, msLoaded).Samples
	if len(b) != 2*9 || !slices.Equal(a, b[:len(a)]) {
		t.Errorf("MultiStream equal issue: %v, want the plain order %v padded to 9 queries", b, a)
	}
}

// TestDurationIsOneStepPastTheLastQuery: Queries.Duration is LoadGen's
// generated_query_duration, the schedule clock after the generation
// loop: the last query's time plus one more step (an exponential draw in
// Server, the truncated period 1/qps·1e9 elsewhere), also in accuracy
// mode, where the queries themselves are issued at once.
func TestDurationIsOneStepPastTheLastQuery(t *testing.T) {
	loaded := make([]uint64, 100)
	for i := range loaded {
		loaded[i] = uint64(i)
	}
	draws := func(qps float64, n int) (last, after int64) {
		g := rng.New(16159082839903944936)
		var tm int64
		for i := range n {
			if i == n-1 {
				last = tm
			}
			tm += int64(g.Exponential(qps) * 1e9)
		}
		return last, tm
	}
	p := base(Server, 50)
	p.TargetDurationNs, p.TargetQPS = 0, 1000
	q := Generate(p, loaded)
	last, after := draws(1000, 50)
	if len(q.Scheduled) != 50 || q.Scheduled[49] != last || q.Duration != after {
		t.Errorf("Server: %d queries, last at %d, duration %d; want 50, %d, %d", len(q.Scheduled), q.Scheduled[len(q.Scheduled)-1], q.Duration, last, after)
	}
	p.Accuracy = true
	q = Generate(p, loaded)
	if _, after := draws(1000, 100); len(q.Scheduled) != 100 || q.Duration != after {
		t.Errorf("Server accuracy: %d queries, duration %d; want 100 and the sum of 100 draws %d", len(q.Scheduled), q.Duration, after)
	}
	// A SingleStream target latency of 13 ns: LoadGen's period is
	// int64(1/qps·1e9) = 12 ns, where 1e9/qps would give 13.
	p = base(SingleStream, 5)
	p.TargetDurationNs, p.TargetQPS = 0, 1e9/13
	if q := Generate(p, loaded); len(q.Scheduled) != 5 || q.Scheduled[4] != 48 || q.Duration != 60 {
		t.Errorf("SingleStream: %d queries, last at %d, duration %d; want 5, 48, 60", len(q.Scheduled), q.Scheduled[len(q.Scheduled)-1], q.Duration)
	}
	p = base(Offline, 1)
	p.SamplesPerQuery, p.TargetQPS = 500, 3
	if q := Generate(p, loaded); q.Duration != 333333333 {
		t.Errorf("Offline at 3 QPS: duration %d, want one period 333333333", q.Duration)
	}
}

// TestIssueUniqueGeneratesOnePass: with performance_issue_unique LoadGen
// generates exactly the queries of one pass over the loaded set (the
// MultiStream set with its padding, divided by samples per query),
// whatever min_query_count and the duration ask: fewer or more.
func TestIssueUniqueGeneratesOnePass(t *testing.T) {
	for _, c := range []struct {
		sc        Scenario
		spq, minq uint64
		want      int
	}{
		{SingleStream, 1, 250, 400},
		{SingleStream, 1, 1000, 400},
		{Server, 1, 250, 400},
		{Server, 1, 1000, 400},
		{MultiStream, 4, 100, 100}, // (400 + 3) / 4
	} {
		p := base(c.sc, c.minq)
		p.TotalSampleCount, p.PerformanceSampleCount, p.SamplesPerQuery = 400, 400, int(c.spq)
		p.IssueUnique, p.TargetDurationNs = true, 60e9
		q := Generate(p, LoadableSets(p)[0])
		if n := len(q.Scheduled); n != c.want {
			t.Errorf("%v spq %d min_query_count %d: %d queries, want %d", c.sc, c.spq, c.minq, n, c.want)
		}
	}
}
