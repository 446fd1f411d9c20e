package loadgen_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// benchRun runs s against the null SUT b.N times and reports ns and bytes
// allocated per query (the C++ LoadGen figures are in shared/spec/loadgen.md),
// with the per-query record (as every run writes it) unless noRecord.
func benchRun(b *testing.B, s loadgen.Settings, noRecord ...bool) {
	qsl := &loadgentest.MemQSL{Total: 1024, Performance: 1024}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = b.TempDir()
	logs.QueryRecord = len(noRecord) == 0 || !noRecord[0]
	var queries, samples int
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		res, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl, s, logs)
		if err != nil {
			b.Fatal(err)
		}
		queries += res.QueryCount
		samples += res.SampleCount
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(queries), "ns/query")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(queries), "B/query")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(samples), "B/sample")
	b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
}

func benchSettings(sc loadgen.Scenario) loadgen.Settings {
	s := loadgen.DefaultSettings()
	s.Scenario = sc
	s.MinDurationMs = 0
	s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = 1, 2, 3
	return s
}

// SingleStream with the null SUT: the loadgen's overhead per query.
func BenchmarkSingleStreamNullSUT(b *testing.B) {
	s := benchSettings(loadgen.SingleStream)
	s.MinQueryCount = 200_000
	benchRun(b, s)
}

// Offline: one query of 1M samples issued and completed.
func BenchmarkOffline1MSamples(b *testing.B) {
	s := benchSettings(loadgen.Offline)
	s.MinQueryCount = 1_000_000
	benchRun(b, s)
}

// Server at 200k QPS for 0.5 s with the null SUT.
func BenchmarkServer200kQPS(b *testing.B) {
	s := benchSettings(loadgen.Server)
	s.ServerTargetQPS = 200_000
	s.MinDurationMs = 500
	s.MinQueryCount = 100
	benchRun(b, s)
}

// The same runs without the per-query record: the difference in ns/query
// and B/query is what the record costs (it is written after each series,
// outside the timed section, from slots the run fills anyway).
func BenchmarkSingleStreamNullSUTNoRecord(b *testing.B) {
	s := benchSettings(loadgen.SingleStream)
	s.MinQueryCount = 200_000
	benchRun(b, s, true)
}

func BenchmarkOffline1MSamplesNoRecord(b *testing.B) {
	s := benchSettings(loadgen.Offline)
	s.MinQueryCount = 1_000_000
	benchRun(b, s, true)
}

func BenchmarkServer200kQPSNoRecord(b *testing.B) {
	s := benchSettings(loadgen.Server)
	s.ServerTargetQPS = 200_000
	s.MinDurationMs = 500
	s.MinQueryCount = 100
	benchRun(b, s, true)
}
