// Package accuracy reads LoadGen's mlperf_log_accuracy.json and scores it
// the way the MLCommons reference scripts do: ImageNet top-1, SQuAD EM/F1,
// ROUGE, and the others as they land. Each scorer is a plain function or
// type with the reference script's output format, so the submission
// checker's regular expressions parse what it prints.
package accuracy
