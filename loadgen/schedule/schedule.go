// Package schedule computes LoadGen's QSL load sets and query sequences
// (GenerateLoadableSets, GenerateQueries) as pure functions of the effective
// settings and seeds. Functions are safe for concurrent use; returned slices
// belong to the caller.
//
// STATUS: first API version. LoadableSets is complete. Generate covers
// performance and accuracy order for all scenarios but its generation-length
// rule, equal-issue and TEST04 unique/same paths are not yet verified against
// the golden sequences (see the TODO marks).
package schedule

import (
	"math"

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
			set = append(set, set[:min(p.SamplesPerQuery-1, len(set))]...)
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
}

// Generate returns the queries of one IssueQueries call over the loaded set.
// TODO: verify against every golden sequence; equal-issue and TEST04 paths.
func Generate(p Params, loaded []uint64) Queries {
	spq := max(p.SamplesPerQuery, 1)
	setSize := len(loaded)
	if p.Scenario == MultiStream {
		setSize -= spq - 1
	}
	if setSize <= 0 {
		return Queries{SamplesPerQuery: spq}
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
	_ = positions() // the eager "unique" helper; TODO: use for IssueUnique
	if L := uint64(len(loaded)); L > 0 && p.MinQueryCount > 0 {
		for range (p.MinQueryCount + L - 1) / L { // equal-issue helper; TODO: EqualIssue
			s := make([]uint64, L)
			for i := range s {
				s[i] = uint64(i)
			}
			rng.Shuffle(s, g)
		}
	}
	q := Queries{SamplesPerQuery: spq}
	if p.Scenario == Offline {
		if p.Accuracy {
			q.SamplesPerQuery = len(loaded)
			q.Samples = append(q.Samples, loaded...)
		} else {
			for i := 0; i < spq; i++ {
				q.Samples = append(q.Samples, loaded[i%len(loaded)])
			}
		}
		q.Scheduled = []int64{0}
		return q
	}
	if p.Accuracy {
		for _, pos := range accOrder {
			q.Samples = append(q.Samples, loaded[pos:pos+uint64(spq)]...)
			q.Scheduled = append(q.Scheduled, 0)
		}
		return q
	}
	sg := rng.New(p.ScheduleSeed)
	horizon := p.TargetDurationNs
	period := int64(1e9 / p.TargetQPS)
	if p.Scenario != Server {
		horizon *= 2
	}
	// LoadGen's loop tests the time of the last query added (prev), so it
	// ends with the first query at or past the horizon: N+1 queries for a
	// fixed period (2 s at 100k QPS gives 200001).
	var t, prev int64
	for n := uint64(0); ; n++ {
		if !(prev < horizon || n < p.MinQueryCount) {
			break
		}
		prev = t
		start := g.UniformInt(0, uint64(setSize-1))
		q.Samples = append(q.Samples, loaded[start:start+uint64(spq)]...)
		q.Scheduled = append(q.Scheduled, t)
		if p.Scenario == Server {
			t += int64(sg.Exponential(p.TargetQPS) * 1e9)
		} else {
			t += period
		}
	}
	_ = math.MaxInt64
	return q
}
