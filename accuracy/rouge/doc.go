// Package rouge computes ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum as
// Google's rouge_score does with use_stemmer=True, including its
// tokenizer, NLTK's Porter stemmer and NLTK's Punkt sentence splitter
// (nltk.sent_tokenize), and aggregates and prints them as
// mlcommons/inference language/gpt-j/evaluation.py and
// language/llama2-70b/evaluate-accuracy.py do.
package rouge
