// Package accuracy reads LoadGen's mlperf_log_accuracy.json (LogReader,
// ReadUnique, Decode), checks that a log is the benchmark's (LogShape,
// CheckLog), and writes and judges accuracy.txt the way the MLCommons
// submission checker reads it (AccuracyText, Targets, CheckText; see
// mlcommons/inference tools/submission/submission_checker/constants.py
// and tools/submission/truncate_accuracy_log.py). It also holds the
// ImageNet top-1 scorer (Top1, after mlcommons/inference
// vision/classification_and_detection/tools/accuracy-imagenet.py): the
// smallest scorer, through which this package's tests drive the log
// reader.
//
// Each other metric family's scorer is a subpackage that reads logs
// through this one and prints its reference script's output format, so
// that the checker's regular expressions parse it: coco (COCO/OpenImages
// mAP), squadeval (SQuAD EM/F1), rouge (ROUGE), auc (ROC AUC for DLRM),
// dice (KiTS19 Dice), fid (FID) and clip (CLIP score).
package accuracy
