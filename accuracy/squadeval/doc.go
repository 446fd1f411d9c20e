// Package squadeval scores BERT's SQuAD v1.1 predictions with exact match
// and F1 as mlcommons/inference language/bert/accuracy-squad.py does
// through the official evaluate_v1.1.py, and holds the BERT accuracy
// targets. It is named apart from datasets/squad, the dataset it reads.
package squadeval
