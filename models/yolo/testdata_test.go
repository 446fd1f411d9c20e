package yolo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// golden is testdata/golden.json, written by testdata/gen_goldens.py from
// OpenCV (Debian python3-opencv) and a numpy re-computation of
// Ultralytics' NMS and box scaling.
type golden struct {
	OpenCV   string           `json:"opencv"`
	Geometry []goldenGeometry `json:"letterbox_geometry"`
	Images   []goldenImage    `json:"letterbox_images"`
	NMSCases []goldenNMS      `json:"nms"`
}

type goldenGeometry struct {
	W, H                     int
	Auto                     bool
	NewW                     int `json:"new_w"`
	NewH                     int `json:"new_h"`
	Top, Bottom, Left, Right int
	Error                    bool
}

type goldenImage struct {
	File                     string
	Width, Height            int
	Auto                     bool
	OutW                     int `json:"out_w"`
	OutH                     int `json:"out_h"`
	NewW                     int `json:"new_w"`
	NewH                     int `json:"new_h"`
	Top, Bottom, Left, Right int
	Letterboxed              string `json:"letterboxed_sha256"`
	Input                    string `json:"input_sha256"`
}

type goldenNMS struct {
	Name             string
	Seed             uint64
	NC               int `json:"nc"`
	N                int
	Objects          int
	Conf, IoU        float32
	MaxDet           int     `json:"max_det"`
	MaxNMS           int     `json:"max_nms"`
	MaxWH            float32 `json:"max_wh"`
	Agnostic         bool
	Raw              string `json:"raw_sha256"`
	Candidates, Kept int
	Boxes, Scores    []uint32
	Classes          []int
	Scaled           []struct {
		W, H        int
		PadX        int    `json:"pad_x"`
		PadY        int    `json:"pad_y"`
		Boxes       string `json:"boxes_sha256"`
		Response    string `json:"response_sha256"`
		ResponseLen int    `json:"response_len"`
	}
}

func loadGolden(t testing.TB) *golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// splitMix64 is gen_goldens.py's SplitMix64.
type splitMix64 struct{ s uint64 }

func (r *splitMix64) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (r *splitMix64) below(n uint64) int { return int(r.next() % n) }

// rawPrediction draws gen_goldens.py's raw_prediction: float32
// [4+nc, n], channel-major.
func rawPrediction(seed uint64, nc, n, objects int) []float32 {
	rng := &splitMix64{s: seed}
	type obj struct{ cx, cy, bw, bh, cls int }
	objs := make([]obj, objects)
	for i := range objs {
		cx := rng.below(640 * 8)
		cy := rng.below(640 * 8)
		bw := 32 + rng.below(300*8)
		bh := 32 + rng.below(300*8)
		objs[i] = obj{cx, cy, bw, bh, rng.below(uint64(nc))}
	}
	p := make([]float32, (4+nc)*n)
	for a := range n {
		r := rng.below(uint64(4 * objects))
		cls := -1
		if r < 3*objects {
			o := objs[r%objects]
			p[a] = float32(float64(o.cx+rng.below(129)-64) / 8)
			p[n+a] = float32(float64(o.cy+rng.below(129)-64) / 8)
			p[2*n+a] = float32(float64(o.bw+rng.below(129)-64) / 8)
			p[3*n+a] = float32(float64(o.bh+rng.below(129)-64) / 8)
			cls = o.cls
		} else {
			p[a] = float32(float64(rng.below(640*8)) / 8)
			p[n+a] = float32(float64(rng.below(640*8)) / 8)
			p[2*n+a] = float32(float64(8+rng.below(200*8)) / 8)
			p[3*n+a] = float32(float64(8+rng.below(200*8)) / 8)
		}
		for c := range nc {
			p[(4+c)*n+a] = float32(float64(rng.below(8)) / 4096)
		}
		if cls >= 0 {
			p[(4+cls)*n+a] = float32(float64(rng.below(1<<20)) / (1 << 20))
		}
	}
	return p
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func float32sSHA(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return sha256Hex(b)
}
