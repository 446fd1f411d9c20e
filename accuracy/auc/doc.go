// Package auc computes the ROC AUC as sklearn.metrics.roc_auc_score does
// and scores DLRM accuracy logs as mlcommons/inference
// recommendation/dlrm_v2/pytorch/tools/accuracy-dlrm.py does (AUC,
// rounded-prediction accuracy, and its printed line).
package auc
