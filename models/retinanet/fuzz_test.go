package retinanet

import (
	"testing"

	"github.com/mlperf-go/inference/preprocess/preprocesstest"
)

// FuzzPreprocessJPEG drives the JPEG entry point of the QSL
// (preprocesstest.FuzzJPEG with this benchmark's PreprocessImage).
func FuzzPreprocessJPEG(f *testing.F) { preprocesstest.FuzzJPEG(f, sampleLen, preprocessImage) }
