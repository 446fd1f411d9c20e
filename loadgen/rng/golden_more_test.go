package rng

import (
	"strconv"
	"strings"
	"testing"
)

func TestUniformIntWideRangeGolden(t *testing.T) {
	g := New(2747215439041700203)
	for i, l := range lines(t, "uniform_int_0_999999_fresh_sampleseed_first64.txt") {
		if got := strconv.FormatUint(g.UniformInt(0, 999999), 10); got != l {
			t.Fatalf("uniform_int(0,999999) #%d = %s, want %s", i, got, l)
		}
	}
}

func TestRawOutputsGolden(t *testing.T) {
	rows := lines(t, "mt19937_raw.csv")[1:] // skip the header
	if len(rows) < 5 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		f := strings.Split(r, ",")
		seed, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		g := New(seed)
		for i, w := range strings.Fields(f[2]) {
			if got := strconv.FormatUint(uint64(g.Uint32()), 10); got != w {
				t.Fatalf("seed %d output %d = %s, want %s", seed, i, got, w)
			}
		}
	}
}

// The per-IssueQueries accuracy-log offset is the first uniform_real of
// mt19937(accuracy_log_rng_seed).
func TestAccuracyLogOffsetGolden(t *testing.T) {
	for _, r := range lines(t, "accuracy_log_offset_by_seed.csv") {
		f := strings.Split(r, ",")
		seed, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue // header
		}
		want, _ := strconv.ParseFloat(f[1], 64)
		if got := New(seed).Canonical(); got != want {
			t.Fatalf("seed %d: offset %v, want %v", seed, got, want)
		}
	}
}
