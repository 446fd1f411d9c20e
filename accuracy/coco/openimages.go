package coco

import (
	"encoding/binary"
	"fmt"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"math"

	"github.com/mlperf-go/inference/accuracy"
)

// RetinaNetTarget is the closed-division RetinaNet mAP target in percent
// (99% of 37.55), from accuracy.Targets.
var RetinaNetTarget, _ = accuracy.MinTarget("retinanet", "mAP")

// RetinaNetRecordSize is the size in bytes of one RetinaNet response
// record: 7 little-endian float32 [qsl_idx, ymin, xmin, ymax, xmax, score,
// label], the box normalised to the image (PostProcessOpenImagesRetinanet).
const RetinaNetRecordSize = 28

// OpenImagesConfig holds the options of accuracy-openimages.py.
type OpenImagesConfig struct {
	// UseInvMap maps label k to ([0] + the file's category ids in file
	// order)[k], Python indexing included (--use-inv-map; not for the
	// ONNX model).
	UseInvMap bool
	// NumPy1 scales boxes as numpy 1.x does (float32 × Python int promotes
	// to float64). The default is numpy ≥ 2 (NEP 50): the product, and the
	// width and height differences, are rounded to float32.
	NumPy1 bool
	// Workers is passed to Evaluate.
	Workers int
}

// RetinaNetDecoder turns RetinaNet responses into COCO detections as
// accuracy-openimages.py does. It is read-only after
// NewRetinaNetDecoder and safe for concurrent use.
type RetinaNetDecoder struct {
	gt     *cocojson.GroundTruth
	cfg    OpenImagesConfig
	cats   *idIndex
	invMap []int64
}

// NewRetinaNetDecoder returns a decoder for responses to the images of gt,
// indexed by qsl_idx in file order.
func NewRetinaNetDecoder(gt *cocojson.GroundTruth, cfg OpenImagesConfig) *RetinaNetDecoder {
	d := &RetinaNetDecoder{gt: gt, cfg: cfg, invMap: []int64{0}}
	ids := make([]int64, len(gt.Categories))
	for i, c := range gt.Categories {
		ids[i] = c.ID
		d.invMap = append(d.invMap, c.ID)
	}
	d.cats = newIDIndex(ids)
	return d
}

// Append decodes the response to qslIdx and appends its detections to dst:
// the box is scaled by the image's width and height from the annotation
// file and turned into [x, y, w, h]; category_id is int(label). It returns
// how many records carry an index other than qslIdx (the script warns and
// goes on). An empty response has no detections. A detection whose
// category is not one of the file's is dropped, as COCOeval (which only
// iterates the ground truth's categories) drops it; ScoreOpenImages counts
// them. Errors: a length that is not a whole number of records, qslIdx
// outside the images, a NaN or infinite index or label, a label outside
// the inverse map. (The script crashes on most of these, but takes 4 to 24
// bytes as "no detections": here that is an error, since no correct SUT
// produces it.)
func (d *RetinaNetDecoder) Append(dst []Detection, qslIdx uint64, data []byte) ([]Detection, int, error) {
	dst, mis, _, err := d.decode(dst, qslIdx, data)
	if err != nil {
		err = fmt.Errorf("accuracy: %w", err)
	}
	return dst, mis, err
}

// decode is Append with errors not yet prefixed, also returning how many
// detections were dropped for an unknown category.
func (d *RetinaNetDecoder) decode(dst []Detection, qslIdx uint64, data []byte) (_ []Detection, mismatches, unknown int, _ error) {
	if qslIdx >= uint64(len(d.gt.Images)) {
		return dst, 0, 0, fmt.Errorf("%w: qsl_idx %d is outside the %d images of the annotation file (was the log made with another data set?)", ErrMalformed, qslIdx, len(d.gt.Images))
	}
	if len(data)%RetinaNetRecordSize != 0 {
		return dst, 0, 0, fmt.Errorf("%w: qsl_idx %d: %d bytes are not a whole number of %d-byte records [qsl_idx, ymin, xmin, ymax, xmax, score, label]", ErrMalformed, qslIdx, len(data), RetinaNetRecordSize)
	}
	im := &d.gt.Images[qslIdx]
	var rec [7]float32
	for n := 0; n*RetinaNetRecordSize < len(data); n++ {
		b := data[n*RetinaNetRecordSize:]
		for i := range rec {
			rec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		idx, label := float64(rec[0]), float64(rec[6])
		if math.IsNaN(idx) || math.IsInf(idx, 0) {
			return dst, mismatches, unknown, fmt.Errorf("%w: qsl_idx %d, record %d: image index is %v", ErrMalformed, qslIdx, n, idx)
		}
		if math.Trunc(idx) != float64(qslIdx) {
			mismatches++
		}
		cat, known, err := d.category(label)
		if err != nil {
			return dst, mismatches, unknown, fmt.Errorf("%w: qsl_idx %d, record %d: %v", ErrMalformed, qslIdx, n, err)
		}
		if !known {
			unknown++
			continue
		}
		det := Detection{ImageID: im.ID, CategoryID: cat, Score: float64(rec[5])}
		if d.cfg.NumPy1 {
			ymin, xmin := float64(rec[1])*im.Height, float64(rec[2])*im.Width
			ymax, xmax := float64(rec[3])*im.Height, float64(rec[4])*im.Width
			det.BBox = [4]float64{xmin, ymin, xmax - xmin, ymax - ymin}
		} else {
			h, w := float32(im.Height), float32(im.Width)
			// Each conversion rounds to float32 and keeps Go from fusing a
			// product into the subtraction.
			ymin, xmin := float32(rec[1]*h), float32(rec[2]*w)
			ymax, xmax := float32(rec[3]*h), float32(rec[4]*w)
			det.BBox = [4]float64{float64(xmin), float64(ymin), float64(xmax - xmin), float64(ymax - ymin)}
		}
		dst = append(dst, det)
	}
	return dst, mismatches, unknown, nil
}

// category is int(label), through the inverse map if configured; known
// reports whether the file has that category.
func (d *RetinaNetDecoder) category(label float64) (cat int64, known bool, err error) {
	if math.IsNaN(label) || math.IsInf(label, 0) {
		return 0, false, fmt.Errorf("label is %v", label)
	}
	t := math.Trunc(label)
	if math.Abs(t) > 1<<53 {
		return 0, false, nil
	}
	c := int64(t)
	if d.cfg.UseInvMap {
		n := int64(len(d.invMap))
		if c < -n || c >= n {
			return 0, false, fmt.Errorf("label %d is outside the inverse label map of %d entries", c, n)
		}
		if c < 0 {
			c += n
		}
		c = d.invMap[c]
	}
	_, ok := d.cats.get(c)
	return c, ok, nil
}

// OpenImagesResult is the outcome of ScoreOpenImages.
type OpenImagesResult struct {
	Eval       *Eval
	Images     int // evaluated images: distinct qsl_idx
	NoResults  int // of them, images with an empty response
	Detections int
	Dupes      int // log entries skipped as repeats of a qsl_idx
	Mismatches int // records whose index field differs from their qsl_idx
	// UnknownCategory counts detections dropped because their category
	// is not in the annotation file (COCOeval never looks at them).
	UnknownCategory int
}

// MAP is the score in percent: 100 × AP@[.50:.95], area all, maxDets 100.
func (r *OpenImagesResult) MAP() float64 { return 100.0 * r.Eval.Stats[0] }

// String is the line accuracy-openimages.py prints last, which the
// submission checker parses.
func (r *OpenImagesResult) String() string { return fmt.Sprintf("mAP=%.3f%%", r.MAP()) }

// Undefined reports whether nothing could be scored: no evaluated image
// has a ground-truth box of any category, so pycocotools gives -1 (the
// reference prints it as mAP=-100.000%, and so does String).
func (r *OpenImagesResult) Undefined() bool { return r.Eval.Stats[0] == -1 }

// UndefinedNote says plainly what an undefined score means, naming the
// annotation file ann; "" when the score is defined.
func (r *OpenImagesResult) UndefinedNote(ann string) string {
	if !r.Undefined() {
		return ""
	}
	return fmt.Sprintf("nothing could be scored: none of the %d evaluated images has a ground-truth box of a category in %s, so every AP is undefined; pycocotools reports -1 and the reference prints it as mAP=-100.000%%, which is not a score (check the annotation file with `mlperf dataset verify openimages`)", r.Images, ann)
}

// Pass reports whether the score meets target (percent).
func (r *OpenImagesResult) Pass(target float64) bool { return r.MAP() >= target }

// ScoreOpenImages scores a RetinaNet accuracy log against an OpenImages
// annotation file as accuracy-openimages.py: the first entry of each
// qsl_idx is decoded (RetinaNetDecoder), every such image is evaluated
// (params.imgIds), and COCO bbox evaluation runs over them. Where the
// script crashes because no image has a detection, this scores 0.
func ScoreOpenImages(logPath string, gt *cocojson.GroundTruth, cfg OpenImagesConfig) (*OpenImagesResult, error) {
	dec := NewRetinaNetDecoder(gt, cfg)
	var dets []Detection
	var imgIDs []int64
	r := &OpenImagesResult{}
	dupes, err := accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		var mis, unknown int
		var err error
		if dets, mis, unknown, err = dec.decode(dets, e.QSLIdx, e.Data); err != nil {
			return fmt.Errorf("accuracy: %s: seq_id %d: %w", logPath, e.SeqID, err)
		}
		r.Mismatches += mis
		r.UnknownCategory += unknown
		if len(e.Data) == 0 {
			r.NoResults++
		}
		imgIDs = append(imgIDs, gt.Images[e.QSLIdx].ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(imgIDs) == 0 {
		return nil, fmt.Errorf("accuracy: %s: %w: no entries", logPath, accuracy.ErrLog)
	}
	r.Dupes, r.Images, r.Detections = dupes, len(imgIDs), len(dets)
	// Every detection's image and category were checked while decoding.
	if r.Eval, err = Evaluate(gt, dets, EvalConfig{ImageIDs: imgIDs, Workers: cfg.Workers}); err != nil {
		return nil, err
	}
	return r, nil
}
