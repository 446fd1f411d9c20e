package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// perfRounds is how many times `mlperf perf` alternates between the raw
// measurement and the harness run: alternating in rounds cancels a drift in
// the machine's speed (other load, thermal limits) that a single
// before/after pair would put on one side only.
const perfRounds = 4

// perfSide measures one side for about d and returns the samples done and
// the time they took.
type perfSide func(ctx context.Context, d time.Duration, expectedQPS float64) (samples int64, elapsed time.Duration, err error)

// perfCompare measures raw and harness throughput in perfRounds rounds of
// raw (d/rounds/2), harness (d/rounds), raw (d/rounds/2), so that each side
// gets about d in all, and prints each round. It returns the samples/s of
// each side over all rounds.
func perfCompare(ctx context.Context, w io.Writer, d time.Duration, raw, harness perfSide) (rawQPS, harnessQPS float64, err error) {
	var rawN, harnessN int64
	var rawT, harnessT time.Duration
	sideRaw := func(d time.Duration) (float64, error) {
		n, el, err := raw(ctx, d, 0)
		if err != nil {
			return 0, fmt.Errorf("perf: raw run: %w", err)
		}
		rawN, rawT = rawN+n, rawT+el
		return float64(n) / el.Seconds(), nil
	}
	per := d / perfRounds
	for r := range perfRounds {
		a, err := sideRaw(per / 2)
		if err != nil {
			return 0, 0, err
		}
		n, el, err := harness(ctx, per, float64(rawN)/rawT.Seconds())
		if err != nil {
			return 0, 0, err
		}
		harnessN, harnessT = harnessN+n, harnessT+el
		b, err := sideRaw(per / 2)
		if err != nil {
			return 0, 0, err
		}
		fmt.Fprintf(w, "perf: round %d/%d: raw %.2f, harness %.2f, raw %.2f samples/s\n", r+1, perfRounds, a, float64(n)/el.Seconds(), b)
	}
	return float64(rawN) / rawT.Seconds(), float64(harnessN) / harnessT.Seconds(), nil
}
