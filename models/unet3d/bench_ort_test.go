//go:build cgo

package unet3d

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/kits19"
)

// BenchmarkWindow runs one 128³ window through the synthetic model of each
// size on the CPU (ns/op is the time of one window):
//
//	go test ./models/unet3d -run XXX -bench Window -benchtime 3x
func BenchmarkWindow(b *testing.B) {
	for _, size := range []string{sizeTiny, sizeFull} {
		b.Run(size, func(b *testing.B) {
			orttest.Need(b)
			path := filepath.Join(b.TempDir(), "model.onnx")
			if err := buildModel(path, size, archSeed); err != nil {
				b.Fatal(err)
			}
			sess, err := ort.Open(path, ort.Options{Provider: "cpu"})
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			m, err := New(sess, nil, 1)
			if err != nil {
				b.Fatal(err)
			}
			vol := kits19.Volume[float32]{Shape: [3]int{window, window, window}, Data: make([]float32, windowVoxels)}
			for i := range vol.Data {
				vol.Data[i] = float32(i%97)/50 - 1
			}
			var buf []float32
			if buf, err = m.RawCase(context.Background(), vol, buf); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if buf, err = m.RawCase(context.Background(), vol, buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/window")
		})
	}
}
