package benchmark

import (
	"context"

	"github.com/mlperf-go/inference/benchmark/spec"
)

// funcDriver is a spec.Driver made of funcs, for tests: nil open or score
// fails, nil build writes nothing, nil check accepts.
type funcDriver struct {
	open  func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error)
	score func(ctx context.Context, r *spec.ScoreRequest) (*spec.Score, error)
	build func(path, size string, seed uint64) error
	check func(o *spec.RunOptions) error
}

func (d *funcDriver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	return d.open(ctx, r)
}

func (d *funcDriver) Score(ctx context.Context, r *spec.ScoreRequest) (*spec.Score, error) {
	return d.score(ctx, r)
}

func (d *funcDriver) BuildModel(path, size string, seed uint64) error {
	if d.build == nil {
		return nil
	}
	return d.build(path, size, seed)
}

func (d *funcDriver) CheckOptions(o *spec.RunOptions) error {
	if d.check == nil {
		return nil
	}
	return d.check(o)
}

// driverOf returns b's funcDriver.
func driverOf(b *spec.Benchmark) *funcDriver { return b.Driver.(*funcDriver) }
