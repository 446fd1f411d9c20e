// Package coco computes COCO-style detection mAP bit for bit as
// pycocotools' COCOeval (evaluate, accumulate, summarize) does, and scores
// RetinaNet accuracy logs on OpenImages as mlcommons/inference
// vision/classification_and_detection/tools/accuracy-openimages.py does
// (decoding the log's 7-float records, then COCOeval).
package coco

import "github.com/mlperf-go/inference/datasets/cocojson"

// ErrMalformed marks a malformed COCO annotation file or detection: the
// same sentinel as cocojson.ErrMalformed, so errors.Is matches either.
var ErrMalformed = cocojson.ErrMalformed
