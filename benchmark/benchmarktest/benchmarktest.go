// Package benchmarktest holds a fake benchmark for tests of the commands
// that run benchmarks (compliance, submission), like net/http/httptest:
// a model that answers each sample
// with its index as a little-endian int32 after a fixed service time, and
// a score that counts the answers equal to their index, printed as
// resnet50's accuracy line. It runs under the conf name resnet50 and the
// checker id resnet, so mlperf.conf's resnet50 settings apply.
package benchmarktest

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// Name is the registered name of the fake benchmark.
const Name = "fakeresnet"

// New returns the fake benchmark with samples samples, each taking delay
// to answer.
func New(samples int, delay time.Duration) *spec.Benchmark {
	return &spec.Benchmark{
		Name:       Name,
		Summary:    "test benchmark answering each sample with its index",
		ConfNames:  []string{"resnet50"},
		CheckerIDs: []string{"resnet"},
		Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Offline},
		Dataset:    "none",
		Compliance: []string{"TEST01", "TEST04"},
		Model:      spec.Models{Default: "synthetic", Sizes: []spec.Size{{Name: "full"}}},
		Driver:     &Echo{Samples: samples, Delay: delay},
	}
}

// Echo is the fake benchmark's driver: Samples samples, each answered
// with its index (a little-endian uint32) after Delay; its score counts
// the entries whose answer is their own index, as resnet50's accuracy
// line. Its synthetic model file holds the size's name.
type Echo struct {
	Samples int
	Delay   time.Duration
}

// BuildModel implements spec.ModelBuilder: the file holds the size.
func (e *Echo) BuildModel(path, size string, seed uint64) error {
	return os.WriteFile(path, []byte(size), 0o644)
}

// Open implements spec.Driver.
func (e *Echo) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	return &spec.Instance{
		Model: harness.ModelFunc(func(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
			time.Sleep(e.Delay)
			for i, s := range idx {
				out[i].Data = binary.LittleEndian.AppendUint32(nil, uint32(s))
			}
			return nil
		}),
		QSL: &loadgentest.MemQSL{Total: e.Samples, Performance: e.Samples},
	}, nil
}

// Score implements spec.Driver.
func (e *Echo) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	good, total := 0, 0
	_, err := accuracy.ReadUnique(req.Log, func(e accuracy.Entry) error {
		total++
		if len(e.Data) == 4 && binary.LittleEndian.Uint32(e.Data) == uint32(e.QSLIdx) {
			good++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &spec.Score{Lines: []string{fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", 100*float64(good)/float64(max(total, 1)), good, total)}}, nil
}
