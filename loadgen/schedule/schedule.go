// Package schedule computes LoadGen's QSL load sets and query sequences
// (GenerateLoadableSets, GenerateQueries) as pure functions of the effective
// settings and seeds. Functions are safe for concurrent use; returned slices
// belong to the caller.
//
// Every golden sequence of the C++ LoadGen is reproduced (see the tests).
// The TEST04 paths (performance_issue_unique / _same) follow LoadGen's
// GenerateQueries; the equal-issue (sample_concatenate_permutation) order
// is checked against C++ LoadGen event traces (loadgen/testdata/cpptrace).
package schedule

import (
	"context"

	"github.com/mlperf-go/inference/loadgen/rng"
)

// Scenario is a LoadGen scenario.
type Scenario int

// The four LoadGen scenarios.
const (
	SingleStream Scenario = iota
	MultiStream
	Server
	Offline
)

// Params are the effective settings the draws depend on.
type Params struct {
	Scenario                               Scenario
	Accuracy                               bool // accuracy mode, else performance
	QSLSeed, SampleIndexSeed, ScheduleSeed uint64
	TotalSampleCount                       int    // effective accuracy_sample_count
	PerformanceSampleCount                 int    // effective performance_sample_count
	SamplesPerQuery                        int    // effective (Offline: the computed spq)
	MinQueryCount                          uint64 // effective
	TargetDurationNs                       int64  // effective target duration (min_duration), ns
	TargetQPS                              float64
	IssueUnique, IssueSame                 bool
	IssueSameIndex                         uint64
	EqualIssue                             bool // sample_concatenate_permutation
}

// LoadableSets returns the index vectors LoadSamplesToRam receives, call by
// call (MultiStream padding included). Performance mode uses only the first.
func LoadableSets(p Params) [][]uint64 {
	count := p.PerformanceSampleCount
	if p.Accuracy {
		count = p.TotalSampleCount
	}
	count = min(count, p.TotalSampleCount)
	if count <= 0 || p.PerformanceSampleCount <= 0 {
		return nil
	}
	idx := make([]uint64, count)
	for i := range idx {
		idx[i] = uint64(i)
	}
	rng.Shuffle(idx, rng.New(p.QSLSeed))
	var sets [][]uint64
	for start := 0; start < count; start += p.PerformanceSampleCount {
		end := min(start+p.PerformanceSampleCount, count)
		set := append([]uint64(nil), idx[start:end]...)
		if p.Scenario == MultiStream && p.SamplesPerQuery > 1 {
			// LoadGen appends set[i] for i < spq-1 one at a time, so a set
			// shorter than the padding repeats its own padding.
			for i := range p.SamplesPerQuery - 1 {
				set = append(set, set[i])
			}
		}
		sets = append(sets, set)
	}
	return sets
}

// Queries is the result of one IssueQueries call.
type Queries struct {
	SamplesPerQuery int      // samples in each query
	Samples         []uint64 // flat; query q is Samples[q*spq:(q+1)*spq]
	Scheduled       []int64  // per query: scheduled offset in ns from the first query
	// Duration is LoadGen's generated_query_duration: the schedule's
	// clock after its generation loop, one schedule step past the last
	// query's time (every query generated advances it, in accuracy mode
	// too; an Offline accuracy remainder query does not).
	Duration int64
}

// Generate returns the queries of one IssueQueries call over the loaded set.
func Generate(p Params, loaded []uint64) Queries {
	q, _ := GenerateContext(context.Background(), p, loaded)
	return q
}

// ctxCheckEvery is how many queries (or Offline samples) GenerateContext
// builds between two looks at its context.
const ctxCheckEvery = 1 << 16

// GenerateContext is Generate that gives up, returning ctx's error, when
// ctx is cancelled while a long schedule is being built.
func GenerateContext(ctx context.Context, p Params, loaded []uint64) (Queries, error) {
	spq := max(p.SamplesPerQuery, 1)
	setSize := len(loaded)
	if p.Scenario == MultiStream {
		setSize -= spq - 1
	}
	if setSize <= 0 {
		return Queries{SamplesPerQuery: spq}, nil
	}
	// LoadGen generates, in accuracy mode and with performance_issue_unique,
	// exactly the queries that cover the loaded set once (integer
	// division; the loaded set includes MultiStream's padding), with no
	// duration target; the effective min_query_count is not changed, so
	// the issue loop may run out of them.
	minQueryCount, horizon := p.MinQueryCount, p.TargetDurationNs
	if p.Accuracy || p.IssueUnique {
		qspq := spq
		if p.Accuracy && p.Scenario == Offline {
			qspq = setSize
		}
		minQueryCount, horizon = uint64(len(loaded)/qspq), 0
	}
	g := rng.New(p.SampleIndexSeed)
	stride := 1
	if p.Scenario == MultiStream {
		stride = spq
	}
	positions := func() []uint64 {
		var s []uint64
		for i := 0; i < setSize; i += stride {
			s = append(s, uint64(i))
		}
		rng.Shuffle(s, g)
		return s
	}
	var accOrder []uint64
	if p.Accuracy {
		accOrder = positions()
	}
	// The "unique" distribution is built eagerly whatever the settings (it
	// advances g); performance_issue_unique draws from it in order.
	unique := positions()
	// The equal-issue helper: ceil(min_query_count / L) permutations of the
	// L loaded positions (MultiStream padding included), built eagerly.
	L := uint64(len(loaded))
	perm := func() []uint64 {
		s := make([]uint64, L)
		for i := range s {
			s[i] = uint64(i)
		}
		rng.Shuffle(s, g)
		return s
	}
	// LoadGen's SampleDistributionEqualIssue shuffles one vector in place
	// again and again, so each permutation is a shuffle of the previous one
	// (not of 0..L-1).
	var equal []uint64
	if L > 0 && minQueryCount > 0 {
		cur := make([]uint64, L)
		for i := range cur {
			cur[i] = uint64(i)
		}
		for range (minQueryCount + L - 1) / L {
			rng.Shuffle(cur, g)
			if p.EqualIssue {
				equal = append(equal, cur...)
			}
		}
	}
	q := Queries{SamplesPerQuery: spq}
	// LoadGen's schedule step for the fixed-period scenarios:
	// duration_cast<nanoseconds>(duration<double>(1.0 / qps)), which
	// multiplies the double 1/qps by 1e9 and truncates.
	period := int64(1 / p.TargetQPS * 1e9)
	if p.Scenario == Offline {
		if p.Accuracy {
			q.SamplesPerQuery = len(loaded)
			q.Samples = append(q.Samples, loaded...)
		} else {
			q.Samples = make([]uint64, 0, spq)
			switch {
			case p.IssueSame:
				// Every slot gets the chosen loaded sample, as LoadGen's
				// std::fill; the caller checks IssueSameIndex < len(loaded)
				// (LoadGen checks it against performance_sample_count only).
				for range spq {
					q.Samples = append(q.Samples, loaded[p.IssueSameIndex])
				}
			case p.EqualIssue:
				// LoadGen pads the query to a multiple of the loaded set
				// (generated_samples_per_query; the effective setting stays
				// unpadded) and shuffles each repetition of the set.
				if rem := spq % len(loaded); rem != 0 {
					spq += len(loaded) - rem
					q.SamplesPerQuery = spq
				}
				q.Samples = make([]uint64, 0, spq)
				for len(q.Samples) < spq {
					for _, i := range perm() {
						q.Samples = append(q.Samples, loaded[i])
					}
					if err := ctx.Err(); err != nil {
						return Queries{}, err
					}
				}
			default:
				for i := 0; i < spq; i++ {
					if i%ctxCheckEvery == 0 && ctx.Err() != nil {
						return Queries{}, ctx.Err()
					}
					q.Samples = append(q.Samples, loaded[i%len(loaded)])
				}
			}
		}
		q.Scheduled = []int64{0}
		q.Duration = period // one query generated (the remainder query adds no step)
		return q, nil
	}
	sg := rng.New(p.ScheduleSeed)
	step := func() int64 {
		if p.Scenario == Server {
			return int64(sg.Exponential(p.TargetQPS) * 1e9)
		}
		return period
	}
	if p.Accuracy {
		// The queries are issued at once (Scheduled 0), but LoadGen's
		// generation loop still steps its schedule for each of them.
		for _, pos := range accOrder {
			q.Samples = append(q.Samples, loaded[pos:pos+uint64(spq)]...)
			q.Scheduled = append(q.Scheduled, 0)
			q.Duration += step()
		}
		return q, nil
	}
	if p.Scenario != Server {
		horizon *= 2
	}
	// Size the slices for the expected count (a little over for the
	// Poisson schedule) so that generation does not grow them repeatedly;
	// not for a run already cancelled (the allocation alone can take
	// seconds for a huge schedule).
	if err := ctx.Err(); err != nil {
		return Queries{}, err
	}
	if est := max(float64(minQueryCount), float64(horizon)/1e9*p.TargetQPS*1.01+16); est < 1<<31 {
		q.Samples = make([]uint64, 0, int(est)*spq)
		q.Scheduled = make([]int64, 0, int(est))
	}
	// LoadGen's loop tests the time of the last query added (prev), so it
	// ends with the first query at or past the horizon: N+1 queries for a
	// fixed period (2 s at 100k QPS gives 200001).
	// Equal issue: LoadGen pads min_queries to a multiple of the loaded set
	// and, while the generation horizon is not reached, adds one more set
	// each time the count is reached, so that every loaded sample is issued
	// equally often.
	minQueries := minQueryCount
	if p.EqualIssue && minQueries%L != 0 {
		minQueries += L - minQueries%L
	}
	var t, prev int64
	for n := uint64(0); ; n++ {
		if !(prev < horizon || n < minQueries) {
			break
		}
		if n%ctxCheckEvery == 0 && ctx.Err() != nil {
			return Queries{}, ctx.Err()
		}
		prev = t
		var start uint64
		switch {
		case p.IssueUnique:
			start = unique[n%uint64(len(unique))]
		case p.IssueSame:
			start = p.IssueSameIndex
		case p.EqualIssue && p.Scenario != MultiStream:
			// LoadGen's helper holds ceil(min_query_count/L) permutations
			// and wraps around when a longer run exhausts them; MultiStream
			// keeps drawing its uniform start even in equal-issue mode.
			if len(equal) == 0 { // min_query_count 0: LoadGen would divide by zero
				equal = perm()
			}
			start = equal[n%uint64(len(equal))]
		default:
			start = g.UniformInt(0, uint64(setSize-1))
		}
		q.Samples = append(q.Samples, loaded[start:start+uint64(spq)]...)
		q.Scheduled = append(q.Scheduled, t)
		t += step()
		if p.EqualIssue && n+1 >= minQueries && prev < horizon {
			minQueries += L
		}
	}
	q.Duration = t
	return q, nil
}
