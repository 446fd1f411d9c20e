package loadgen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// loadGenRecommendations returns the recommendation lines of a C++
// LoadGen summary golden (testdata/logshape), without their " * ".
func loadGenRecommendations(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/logshape", name+".shape"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "Recommendations:":
			in = true
		case in && strings.HasPrefix(line, " * "):
			out = append(out, strings.TrimPrefix(line, " * "))
		case in && strings.HasPrefix(line, "   ") && len(out) > 0: // continuation line
			out[len(out)-1] += "\n" + line
		default:
			in = false
		}
	}
	return out
}

// Every one-line INVALID reason quotes LoadGen's own recommendation for
// the failed check (from the C++ LoadGen's summaries of the same runs)
// and names the user.conf key in the direction LoadGen's text gives: the
// SingleStream/MultiStream hint once said "increase ... the target
// latency", which generates fewer queries.
func TestInvalidReasonsQuoteLoadGenRecommendations(t *testing.T) {
	for _, c := range []struct {
		name   string
		sc     loadgen.Scenario
		model  string
		conf   string
		tokens bool
	}{
		{"resnet_SingleStream_invalid", loadgen.SingleStream, "resnet50", "resnet_invalid.conf", false},
		{"resnet_MultiStream_invalid", loadgen.MultiStream, "resnet50", "resnet_invalid.conf", false},
		{"resnet_Server_invalid", loadgen.Server, "resnet50", "resnet_invalid.conf", false},
		{"resnet_Offline_invalid", loadgen.Offline, "resnet50", "resnet_invalid.conf", false},
		{"llama_SingleStream_invalid", loadgen.SingleStream, "llama2-70b", "llama_invalid.conf", true},
		{"llama_MultiStream_invalid", loadgen.MultiStream, "llama2-70b", "llama_invalid.conf", true},
		{"llama_Server_invalid", loadgen.Server, "llama2-70b", "llama_invalid.conf", true},
		{"llama_Offline_invalid", loadgen.Offline, "llama2-70b", "llama_invalid.conf", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := loadgen.LoadConfigs(c.model, c.sc, loadgen.PerformanceOnly, "", filepath.Join("testdata/logshape", c.conf), "")
			if err != nil {
				t.Fatal(err)
			}
			var sut loadgen.SUT = &loadgentest.NullSUT{}
			if c.tokens {
				sut = &shapeTokenSUT{offline: c.sc == loadgen.Offline}
			}
			logs := loadgen.DefaultLogSettings()
			logs.OutDir = t.TempDir()
			total := 1024
			if c.tokens {
				total = 64
			}
			res, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: total, Performance: total}, s, logs)
			if err != nil {
				t.Fatal(err)
			}
			recs := loadGenRecommendations(t, c.name)
			if len(recs) == 0 {
				t.Fatal("the golden has no recommendations")
			}
			reasons := strings.Join(res.InvalidReasons, "\n")
			for _, rec := range recs {
				if strings.HasPrefix(rec, "The test exited early") {
					// The invalid cases stop at max_query_count: the reason
					// says so, from the detail log's end line.
					if !strings.Contains(reasons, "the test exited early, before enough queries were issued (Ending early: Max query count reached") {
						t.Errorf("LoadGen recommends %q; no reason says so and why:\n%s", rec, reasons)
					}
					continue
				}
				// "TTFT constrain not met: Reduce ..." → the action part.
				action := strings.TrimSuffix(rec[strings.LastIndex(rec, ": ")+1:], ".")
				action = strings.TrimSpace(action)
				var hit string
				for _, r := range res.InvalidReasons {
					if strings.Contains(r, action) {
						hit = r
					}
				}
				if hit == "" {
					t.Errorf("LoadGen recommends %q; no reason quotes it:\n%s", rec, reasons)
					continue
				}
				var want, wrong []string
				switch {
				case strings.HasPrefix(action, "Decrease the expected latency"):
					want, wrong = []string{"lower " + c.sc.String() + ".target_latency"}, []string{"raise", "increase"}
				case strings.HasPrefix(action, "Increase"):
					want, wrong = []string{"raise " + c.sc.String() + ".target_qps"}, []string{"lower"}
				case strings.HasPrefix(action, "Reduce target QPS"):
					want, wrong = []string{"lower Server.target_qps"}, []string{"raise", "increase"}
				default:
					t.Fatalf("no rule for LoadGen's %q", action)
				}
				for _, w := range want {
					if !strings.Contains(hit, w) {
						t.Errorf("reason %q lacks %q", hit, w)
					}
				}
				for _, w := range wrong {
					if strings.Contains(strings.ToLower(hit), w) {
						t.Errorf("reason %q says %q, against LoadGen's %q", hit, w, rec)
					}
				}
			}
			// The summary's recommendations are LoadGen's, line for line.
			if got := strings.Join(res.Recommendations, "\n * "); got != strings.Join(recs, "\n * ") {
				t.Errorf("recommendations\n%s\nwant LoadGen's\n%s", got, strings.Join(recs, "\n * "))
			}
		})
	}
}

// Following the min-duration hint fixes the run, and doing the opposite
// (what the old SingleStream hint said) does not: with a SUT that takes
// at least 1 ms a query, the run lasts at least as many milliseconds as
// it issues queries, whatever the machine's load.
func TestMinDurationHintFollowedMakesTheRunLongEnough(t *testing.T) {
	run := func(t *testing.T, sc loadgen.Scenario, conf string) *loadgen.Result {
		t.Helper()
		p := filepath.Join(t.TempDir(), "user.conf")
		os.WriteFile(p, []byte(conf), 0o644)
		s, err := loadgen.LoadConfigs("resnet50", sc, loadgen.PerformanceOnly, "", p, "")
		if err != nil {
			t.Fatal(err)
		}
		sut := &loadgentest.DelaySUT{ServiceTime: time.Millisecond}
		defer sut.Close()
		logs := loadgen.DefaultLogSettings()
		logs.OutDir = t.TempDir()
		res, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	const base = "*.*.min_duration = 150\n*.*.min_query_count = 1\n"
	t.Run("SingleStream", func(t *testing.T) {
		// 150 ms / 50 ms: 3 queries of ~1 ms, far short of 150 ms.
		bad := run(t, loadgen.SingleStream, base+"*.SingleStream.target_latency = 50\n")
		if bad.MinDurationMet || !strings.Contains(strings.Join(bad.InvalidReasons, " "), "lower SingleStream.target_latency") {
			t.Fatalf("a run of 3 queries: met %v, reasons %q", bad.MinDurationMet, bad.InvalidReasons)
		}
		if opposite := run(t, loadgen.SingleStream, base+"*.SingleStream.target_latency = 100\n"); opposite.MinDurationMet {
			t.Fatal("a higher target latency met min_duration")
		}
		// 150 ms / 0.5 ms: 300 queries of at least 1 ms each.
		if good := run(t, loadgen.SingleStream, base+"*.SingleStream.target_latency = 0.5\n"); !good.MinDurationMet {
			t.Fatalf("the hint followed: ran %d ns, reasons %q", good.DurationNs, good.InvalidReasons)
		}
	})
	t.Run("Offline", func(t *testing.T) {
		// 1.1 × 0.15 s × 10 QPS: one sample of ~1 ms.
		bad := run(t, loadgen.Offline, base+"*.Offline.target_qps = 10\n")
		if bad.MinDurationMet || !strings.Contains(strings.Join(bad.InvalidReasons, " "), "raise Offline.target_qps") {
			t.Fatalf("a one-sample Offline run: met %v, reasons %q", bad.MinDurationMet, bad.InvalidReasons)
		}
		// 1.1 × 0.15 s × 2000 QPS = 330 samples, one at a time, ≥ 1 ms each.
		good := run(t, loadgen.Offline, base+"*.Offline.target_qps = 2000\n")
		if !good.MinDurationMet {
			t.Fatalf("the hint followed: ran %d ns, reasons %q", good.DurationNs, good.InvalidReasons)
		}
	})
}
