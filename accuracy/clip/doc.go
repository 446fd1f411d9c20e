// Package clip computes the CLIP score of paired image and text feature
// vectors as mlcommons/inference text_to_image/tools/clip/clip_encoder.py
// and text_to_image/tools/accuracy_coco.py do.
package clip
