// Package fakebench is a benchmark for tests of the commands that run
// benchmarks (compliance, submission): a model that answers each sample
// with its index as a little-endian int32 after a fixed service time, and
// a score that counts the answers equal to their index, printed as
// resnet50's accuracy line. It runs under the conf name resnet50 and the
// checker id resnet, so mlperf.conf's resnet50 settings apply.
package fakebench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// Name is the registered name of the fake benchmark.
const Name = "fakeresnet"

// New returns the fake benchmark with samples samples, each taking delay
// to answer.
func New(samples int, delay time.Duration) *benchmark.Benchmark {
	return &benchmark.Benchmark{
		Name:       Name,
		Summary:    "test benchmark answering each sample with its index",
		ConfNames:  []string{"resnet50"},
		CheckerIDs: []string{"resnet"},
		Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Offline},
		Dataset:    "none",
		Compliance: []string{"TEST01", "TEST04"},
		Model: benchmark.Models{
			Default: "synthetic",
			Sizes:   []benchmark.Size{{Name: "full"}},
			Build:   func(path, size string, seed uint64) error { return os.WriteFile(path, []byte(size), 0o644) },
		},
		Open: func(ctx context.Context, env *benchmark.Env) (*benchmark.Instance, error) {
			return &benchmark.Instance{
				Model: harness.ModelFunc(func(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
					time.Sleep(delay)
					for i, s := range idx {
						out[i].Data = binary.LittleEndian.AppendUint32(nil, uint32(s))
					}
					return nil
				}),
				QSL: &loadgentest.MemQSL{Total: samples, Performance: samples},
			}, nil
		},
		Score: func(ctx context.Context, req *benchmark.ScoreRequest) (*benchmark.Score, error) {
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
			return &benchmark.Score{Lines: []string{fmt.Sprintf("accuracy=%.3f%%, good=%d, total=%d", 100*float64(good)/float64(max(total, 1)), good, total)}}, nil
		},
	}
}
