module github.com/mlperf-go/inference

go 1.26

require github.com/yalue/onnxruntime_go v1.27.0
