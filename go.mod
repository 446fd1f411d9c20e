module github.com/mlperf-go/inference

go 1.26
