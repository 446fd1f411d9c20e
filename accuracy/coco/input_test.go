package coco

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// miniGT is a small OpenImages-style file: three images, categories 0..3,
// a crowd box and boxes on the area-range bounds.
const miniGT = `{"info": {"dataset": "x"}, "categories": [
 {"id": 0, "name": "a"}, {"id": 1, "name": "b"}, {"id": 2, "name": "c"}, {"id": 3, "name": "d"}],
 "images": [
 {"id": 1, "file_name": "a.jpg", "height": 480, "width": 640},
 {"id": 2, "file_name": "b.jpg", "height": 683, "width": 1024},
 {"id": 3, "file_name": "c.jpg", "height": 100, "width": 100}],
 "annotations": [
 {"id": 1, "image_id": 1, "category_id": 0, "bbox": [64, 48, 320, 240], "area": 76800, "iscrowd": 0},
 {"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 32, 32], "area": 1024, "iscrowd": 0},
 {"id": 3, "image_id": 2, "category_id": 0, "bbox": [0, 0, 1024, 683], "area": 699392, "iscrowd": true},
 {"id": 4, "image_id": 2, "category_id": 2, "bbox": [100, 100, 96, 96], "area": 9216, "iscrowd": 0}]}`

func miniGroundTruth(t testing.TB) *cocojson.GroundTruth {
	t.Helper()
	gt, err := cocojson.DecodeGroundTruth(strings.NewReader(miniGT), "mini.json")
	if err != nil {
		t.Fatal(err)
	}
	return gt
}

// retinaRecords encodes records [idx, ymin, xmin, ymax, xmax, score, label].
func retinaRecords(recs ...[7]float32) []byte {
	b := make([]byte, 0, len(recs)*RetinaNetRecordSize)
	for _, r := range recs {
		for _, v := range r {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	return b
}

func logOf(entries ...string) string {
	return "[\n" + strings.Join(entries, ",\n") + "\n]\n"
}

func logEntry(seq, qsl int, data []byte) string {
	return fmt.Sprintf(`{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }`, seq, qsl, strings.ToUpper(hex.EncodeToString(data)))
}

func TestScoreOpenImagesBadInputs(t *testing.T) {
	gt := miniGroundTruth(t)
	good := retinaRecords([7]float32{0, 0.1, 0.1, 0.5, 0.5, 0.9, 0})
	for name, c := range map[string]struct{ log, want string }{
		"partial record":  {logOf(logEntry(0, 0, good), logEntry(3, 1, good[:20])), "seq_id 3: malformed COCO data: qsl_idx 1: 20 bytes are not a whole number of 28-byte records"},
		"record and more": {logOf(logEntry(5, 0, append(good, 0, 0, 0, 0))), "seq_id 5: malformed COCO data: qsl_idx 0: 32 bytes"},
		"qsl outside":     {logOf(logEntry(4, 3, good)), "seq_id 4: malformed COCO data: qsl_idx 3 is outside the 3 images"},
		"nan label":       {logOf(logEntry(7, 0, retinaRecords([7]float32{0, 0, 0, 1, 1, 0.5, float32(math.NaN())}))), "record 0: label is NaN"},
		"inf index":       {logOf(logEntry(8, 0, retinaRecords([7]float32{float32(math.Inf(1)), 0, 0, 1, 1, 0.5, 1}))), "image index is +Inf"},
		"no entries":      {"[\n]\n", "no entries"},
		"truncated":       {logOf(logEntry(0, 0, good))[:40], "truncated"},
		"bad hex":         {`[{"seq_id": 9, "qsl_idx": 0, "data": "0G"}]`, "seq_id 9"},
		"not a array":     {`{}`, "does not start with '['"},
	} {
		path := writeLog(t, c.log)
		_, err := ScoreOpenImages(path, gt, OpenImagesConfig{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "accuracy: "+path) {
			t.Errorf("%s: err = %v, want it to name %s and %q", name, err, path, c.want)
		}
	}
}

func TestEvaluateCOCOBadDetections(t *testing.T) {
	gt := miniGroundTruth(t)
	for name, c := range map[string]struct {
		det  Detection
		want string
	}{
		"unknown image":    {Detection{ImageID: 9, CategoryID: 0}, "detection 1: image_id 9 is not an image"},
		"unknown category": {Detection{ImageID: 1, CategoryID: 7}, "detection 1 (image_id 1): category_id 7 is not a category"},
	} {
		dets := []Detection{{ImageID: 1, CategoryID: 0, BBox: [4]float64{1, 1, 2, 2}, Score: 1}, c.det}
		_, err := Evaluate(gt, dets, EvalConfig{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func TestEvaluateCOCOEmpty(t *testing.T) {
	gt := miniGroundTruth(t)
	// No detections: 0 wherever there is ground truth (pycocotools' loadRes
	// would crash on the empty list), -1 where there is none.
	ev, err := Evaluate(gt, nil, EvalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Stats != [12]float64{} {
		t.Errorf("stats %v, want all 0", ev.Stats)
	}
	// No evaluated images: every setting is absent.
	ev, err = Evaluate(gt, nil, EvalConfig{ImageIDs: []int64{}})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ev.Stats {
		if s != -1 {
			t.Errorf("no images: stats[%d] = %v, want -1", i, s)
		}
	}
	if !strings.Contains(ev.Summary(), "maxDets=100 ] = -1.000\n") {
		t.Errorf("summary:\n%s", ev.Summary())
	}
}

func TestRetinaNetDecoder(t *testing.T) {
	gt := miniGroundTruth(t)
	rec := [7]float32{1, 0.1, 0.3, 0.7, 0.9, 0.75, 2} // image 2: 1024x683
	// numpy >= 2: float32 products and differences.
	h, w := float32(683), float32(1024)
	ymin, xmin, ymax, xmax := float32(rec[1]*h), float32(rec[2]*w), float32(rec[3]*h), float32(rec[4]*w)
	want2 := [4]float64{float64(xmin), float64(ymin), float64(xmax - xmin), float64(ymax - ymin)}
	// numpy 1.x: float64.
	y1, x1, y2, x2 := float64(rec[1])*683, float64(rec[2])*1024, float64(rec[3])*683, float64(rec[4])*1024
	want1 := [4]float64{x1, y1, x2 - x1, y2 - y1}
	if want1 == want2 {
		t.Fatal("test record does not tell the two arithmetics apart")
	}
	for _, c := range []struct {
		cfg  OpenImagesConfig
		want [4]float64
	}{{OpenImagesConfig{}, want2}, {OpenImagesConfig{NumPy1: true}, want1}} {
		dets, mis, err := NewRetinaNetDecoder(gt, c.cfg).Append(nil, 1, retinaRecords(rec, rec))
		if err != nil || mis != 0 || len(dets) != 2 {
			t.Fatalf("%+v: %v %d %v", c.cfg, dets, mis, err)
		}
		d := dets[0]
		if d.ImageID != 2 || d.CategoryID != 2 || d.Score != float64(float32(0.75)) || d.BBox != c.want {
			t.Errorf("%+v: %+v, want image 2, category 2, box %v", c.cfg, d, c.want)
		}
	}
	// --use-inv-map: label k -> ([0] + ids)[k], negative k from the end.
	inv := NewRetinaNetDecoder(gt, OpenImagesConfig{UseInvMap: true})
	for label, want := range map[float32]int64{1: 0, 4: 3, -1: 3, -5: 0, 2.9: 1} {
		r := rec
		r[6] = label
		dets, _, err := inv.Append(nil, 1, retinaRecords(r))
		if err != nil || dets[0].CategoryID != want {
			t.Errorf("inv map label %v: %v %v, want category %d", label, dets, err, want)
		}
	}
	if _, _, err := inv.Append(nil, 1, retinaRecords([7]float32{1, 0, 0, 1, 1, 1, 5})); err == nil {
		t.Error("inv map label 5 of 5 entries: no error")
	}
	// An index field other than the qsl_idx is counted, not fatal.
	if _, mis, err := NewRetinaNetDecoder(gt, OpenImagesConfig{}).Append(nil, 0, retinaRecords(rec)); err != nil || mis != 1 {
		t.Errorf("mismatch: %d %v, want 1 nil", mis, err)
	}
}

func TestScoreOpenImagesPerfect(t *testing.T) {
	gt := miniGroundTruth(t)
	// Exact boxes for every non-crowd ground truth; image 3 answers nothing.
	box := func(idx, x, y, w, h, W, H, label float32) [7]float32 {
		return [7]float32{idx, y / H, x / W, (y + h) / H, (x + w) / W, 0.9, label}
	}
	log := logOf(
		logEntry(0, 0, retinaRecords(box(0, 64, 48, 320, 240, 640, 480, 0), box(0, 0, 0, 32, 32, 640, 480, 1))),
		logEntry(1, 1, retinaRecords(box(1, 100, 100, 96, 96, 1024, 683, 2))),
		logEntry(2, 2, nil),
		logEntry(3, 0, nil), // a repeat: ignored
	)
	r, err := ScoreOpenImages(writeLog(t, log), gt, OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r.String() != "mAP=100.000%" || !r.Pass(RetinaNetTarget) || r.Images != 3 || r.NoResults != 1 || r.Dupes != 1 || r.Detections != 3 {
		t.Errorf("%s images %d no-results %d dupes %d detections %d", r, r.Images, r.NoResults, r.Dupes, r.Detections)
	}
}

// TestScoreOpenImagesUnknownCategory: detections of categories the file
// does not have are dropped and counted, as COCOeval ignores them; the
// score is that of the log without them.
func TestScoreOpenImagesUnknownCategory(t *testing.T) {
	gt := miniGroundTruth(t)
	good := [7]float32{0, 48.0 / 480, 64.0 / 640, 288.0 / 480, 384.0 / 640, 0.9, 0}
	stray := [7]float32{0, 0.1, 0.1, 0.5, 0.5, 0.95, 264}
	negative := [7]float32{0, 0.1, 0.1, 0.5, 0.5, 0.95, -1}
	with, err := ScoreOpenImages(writeLog(t, logOf(logEntry(0, 0, retinaRecords(stray, good, negative)), logEntry(1, 1, nil))), gt, OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	without, err := ScoreOpenImages(writeLog(t, logOf(logEntry(0, 0, retinaRecords(good)), logEntry(1, 1, nil))), gt, OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if with.UnknownCategory != 2 || with.Detections != 1 || with.String() != without.String() || without.MAP() <= 0 {
		t.Errorf("with strays: %s, %d unknown, %d detections; without: %s", with, with.UnknownCategory, with.Detections, without)
	}
}

func FuzzCOCORetinaNet(f *testing.F) {
	f.Add(retinaRecords([7]float32{0, 0.1, 0.1, 0.5, 0.5, 0.9, 0}), uint8(0), false)
	f.Add(retinaRecords([7]float32{1, 0, 0, 1, 1, float32(math.NaN()), 2}, [7]float32{1, -1, 2, float32(math.Inf(1)), 0.5, 0.5, 2}), uint8(1), true)
	f.Add([]byte{1, 2, 3}, uint8(7), false)
	gt := miniGroundTruth(f)
	f.Fuzz(func(t *testing.T, data []byte, qsl uint8, numpy1 bool) {
		dec := NewRetinaNetDecoder(gt, OpenImagesConfig{NumPy1: numpy1, UseInvMap: qsl&0x80 != 0})
		// The same bytes answer every image, so that one input reaches
		// several images and categories.
		var dets []Detection
		for i := range uint64(3) {
			var err error
			if dets, _, err = dec.Append(dets, i+uint64(qsl&0x7f), data); err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("error without ErrMalformed: %v", err)
				}
				return
			}
		}
		ev, err := Evaluate(gt, dets, EvalConfig{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range ev.Stats {
			if !(s == -1 || s >= 0 && s <= 1) {
				t.Fatalf("stats[%d] = %v", i, s)
			}
		}
	})
}

func FuzzCOCOGroundTruth(f *testing.F) {
	f.Add([]byte(miniGT))
	f.Add([]byte(`{"images": [{"id": 5, "width": 1, "height": 1}], "categories": [{"id": -3}], "annotations": [{"id": 0, "image_id": 5, "category_id": -3, "bbox": [0, 0, -1, 1e308], "area": -1, "iscrowd": 2.5}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		gt, err := cocojson.DecodeGroundTruth(strings.NewReader(string(b)), "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error without ErrMalformed: %v", err)
			}
			return
		}
		if len(gt.Annotations) > 1000 {
			return
		}
		// Every ground truth box is also a detection (of a known image and
		// category), scored by its position.
		var dets []Detection
		imgs := map[int64]bool{}
		for _, im := range gt.Images {
			imgs[im.ID] = true
		}
		cats := map[int64]bool{}
		for _, c := range gt.Categories {
			cats[c.ID] = true
		}
		for i, a := range gt.Annotations {
			if imgs[a.ImageID] && cats[a.CategoryID] {
				dets = append(dets, Detection{ImageID: a.ImageID, CategoryID: a.CategoryID, BBox: a.BBox, Score: float64(i % 3)})
			}
		}
		if _, err := Evaluate(gt, dets, EvalConfig{Workers: 2}); err != nil {
			t.Fatal(err)
		}
	})
}

// writeLog writes s as an mlperf_log_accuracy.json in a test folder and
// returns its path.
func writeLog(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A log whose images have no ground truth at all scores -1 (pycocotools'
// undefined, printed as mAP=-100.000% as the reference prints it), and
// the result says plainly that nothing could be scored.
func TestScoreOpenImagesUndefined(t *testing.T) {
	gt := miniGroundTruth(t)
	det := retinaRecords([7]float32{2, 0.1, 0.1, 0.5, 0.5, 0.9, 0})
	r, err := ScoreOpenImages(writeLog(t, logOf(logEntry(0, 2, det))), gt, OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Undefined() || r.String() != "mAP=-100.000%" || !strings.Contains(r.UndefinedNote("mini.json"), "nothing could be scored: none of the 1 evaluated images has a ground-truth box of a category in mini.json") {
		t.Errorf("undefined score: %s, %q", r, r.UndefinedNote("mini.json"))
	}
	r, err = ScoreOpenImages(writeLog(t, logOf(logEntry(0, 0, retinaRecords([7]float32{0, 0.1, 0.1, 0.5, 0.5, 0.9, 0})))), gt, OpenImagesConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Undefined() || r.UndefinedNote("mini.json") != "" {
		t.Errorf("a defined score %s is said undefined", r)
	}
}
