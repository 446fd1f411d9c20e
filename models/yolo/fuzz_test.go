package yolo

import (
	"math"
	"testing"

	"github.com/mlperf-go/inference/preprocess/preprocesstest"
)

// FuzzPreprocessJPEG drives the JPEG entry point of the QSL
// (preprocesstest.FuzzJPEG with this benchmark's preprocessImage).
func FuzzPreprocessJPEG(f *testing.F) { preprocesstest.FuzzJPEG(f, sampleLen, preprocessImage) }

// FuzzNMS feeds NMS arbitrary raw predictions (any values, NaN and
// infinities included) for a few anchors: it must not panic, must keep at
// most MaxDet detections, each above the threshold with a class in range,
// in non-increasing score order.
func FuzzNMS(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint8(3), false)
	f.Fuzz(func(t *testing.T, raw []byte, ncb uint8, agnostic bool) {
		nc := 1 + int(ncb%5)
		vals := make([]float32, len(raw)/2)
		for i := range vals {
			v := int16(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
			switch v {
			case 32767:
				vals[i] = float32(math.Inf(1))
			case -32768:
				vals[i] = float32(math.NaN())
			default:
				vals[i] = float32(v) / 64
			}
		}
		n := len(vals) / (4 + nc)
		vals = vals[:n*(4+nc)]
		cfg := nmsConfig{Conf: 0.25, IoU: 0.5, MaxDet: 3, MaxNMS: 4, MaxWH: 7680, Agnostic: agnostic}
		d, err := nms(nil, vals, nc, n, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) > cfg.MaxDet {
			t.Fatalf("%d detections", len(d))
		}
		for i, x := range d {
			if !(x.Score > cfg.Conf) || x.Class < 0 || x.Class >= nc || (i > 0 && x.Score > d[i-1].Score) {
				t.Fatalf("detection %d: %+v", i, x)
			}
		}
		scaleBoxes(d, inputSize, 1+int(ncb), 1+int(ncb)*3)
	})
}
