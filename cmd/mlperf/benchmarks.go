package main

// The benchmarks this command runs: each models/<name> package registers
// its spec.Benchmark (and its data set) with spec.Register from init; a
// new benchmark adds one blank import here and no other line to the
// command.

import (
	_ "github.com/mlperf-go/inference/models/bert"
	_ "github.com/mlperf-go/inference/models/dlrm"
	_ "github.com/mlperf-go/inference/models/gptj"
	_ "github.com/mlperf-go/inference/models/llama2"
	_ "github.com/mlperf-go/inference/models/llama3"
	_ "github.com/mlperf-go/inference/models/mixtral"
	_ "github.com/mlperf-go/inference/models/resnet50"
	_ "github.com/mlperf-go/inference/models/retinanet"
	_ "github.com/mlperf-go/inference/models/sdxl"
	_ "github.com/mlperf-go/inference/models/unet3d"
	_ "github.com/mlperf-go/inference/models/whisper"
	_ "github.com/mlperf-go/inference/models/yolo"
)
