package coco

import (
	"github.com/mlperf-go/inference/datasets/cocojson"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// synthCOCO builds an OpenImages-sized problem: nImg images, about 7
// ground-truth boxes each over 264 categories (skewed towards low ids, as
// real class frequencies are), and detsPer detections per image, 40% of
// them near a ground truth box, with float32 boxes and scores.
func synthCOCO(nImg, detsPer int, seed uint64) (*cocojson.GroundTruth, []Detection) {
	rng := rand.New(rand.NewPCG(seed, 0x636f636f))
	const K = 264
	gt := &cocojson.GroundTruth{}
	for k := range K {
		gt.Categories = append(gt.Categories, cocojson.Category{ID: int64(k), Name: "c" + strconv.Itoa(k)})
	}
	f32 := func(v float64) float64 { return float64(float32(v)) }
	sizes := [][2]float64{{1024, 683}, {1024, 768}, {683, 1024}, {800, 533}, {1024, 1024}}
	cat := func() int64 { u := rng.Float64(); return int64(u * u * K) }
	dets := make([]Detection, 0, nImg*detsPer)
	for i := range nImg {
		sz := sizes[rng.IntN(len(sizes))]
		id := int64(i + 1)
		gt.Images = append(gt.Images, cocojson.Image{ID: id, Width: sz[0], Height: sz[1]})
		first := len(gt.Annotations)
		for range 1 + rng.IntN(13) {
			w, h := f32(4+rng.Float64()*sz[0]/2), f32(4+rng.Float64()*sz[1]/2)
			b := [4]float64{f32(rng.Float64() * (sz[0] - w)), f32(rng.Float64() * (sz[1] - h)), w, h}
			crowd := 0.0
			if rng.IntN(20) == 0 {
				crowd = 1
			}
			gt.Annotations = append(gt.Annotations, cocojson.Annotation{
				ID: int64(len(gt.Annotations) + 1), ImageID: id, CategoryID: cat(), BBox: b, Area: w * h, IsCrowd: crowd})
		}
		anns := gt.Annotations[first:]
		score := 1.0
		for range detsPer {
			score *= 1 - rng.Float64()*0.02
			d := Detection{ImageID: id, CategoryID: cat(), Score: f32(score)}
			if rng.IntN(10) < 4 {
				a := anns[rng.IntN(len(anns))]
				for j := range 4 {
					d.BBox[j] = f32(a.BBox[j] + rng.NormFloat64()*0.08*max(a.BBox[2], a.BBox[3]))
				}
				d.BBox[2], d.BBox[3] = math.Abs(d.BBox[2]), math.Abs(d.BBox[3])
				if rng.IntN(5) != 0 {
					d.CategoryID = a.CategoryID
				}
			} else {
				w, h := f32(2+rng.Float64()*sz[0]/3), f32(2+rng.Float64()*sz[1]/3)
				d.BBox = [4]float64{f32(rng.Float64() * (sz[0] - w)), f32(rng.Float64() * (sz[1] - h)), w, h}
			}
			dets = append(dets, d)
		}
	}
	return gt, dets
}

// BenchmarkCOCO24781x300 scores the full OpenImages MLPerf subset's shape:
// 24,781 images with 300 detections each (the RetinaNet maximum). It also
// reports the process CPU time per evaluation, which a busy shared machine
// does not inflate as it does wall time.
func BenchmarkCOCO24781x300(b *testing.B) {
	gt, dets := synthCOCO(24781, 300, 1)
	b.ReportAllocs()
	b.ResetTimer()
	var ev *Eval
	cpu0 := processCPU()
	for b.Loop() {
		var err error
		if ev, err = Evaluate(gt, dets, EvalConfig{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(ev.Stats[0], "AP")
}
