// Package all registers every benchmark of the suite: import it for its
// side effects (import _ "github.com/mlperf-go/inference/benchmark/all")
// and the benchmark registry holds them all.
//
// A new benchmark adds one blank import here, of the models/<name>
// package whose init registers its spec.Benchmark with spec.Register (and its data set).
package all

import (
	_ "github.com/mlperf-go/inference/models/bert"
	_ "github.com/mlperf-go/inference/models/dlrm"
	_ "github.com/mlperf-go/inference/models/gptj"
	_ "github.com/mlperf-go/inference/models/llama2"
	_ "github.com/mlperf-go/inference/models/resnet50"
	_ "github.com/mlperf-go/inference/models/retinanet"
	_ "github.com/mlperf-go/inference/models/sdxl"
	_ "github.com/mlperf-go/inference/models/unet3d"
)
