// Package coco computes COCO-style detection mAP bit for bit as
// pycocotools' COCOeval (evaluate, accumulate, summarize) does, and scores
// RetinaNet accuracy logs on OpenImages as mlcommons/inference
// vision/classification_and_detection/tools/accuracy-openimages.py does
// (decoding the log's 7-float records, then COCOeval).
package coco
