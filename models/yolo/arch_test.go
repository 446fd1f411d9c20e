package yolo

import "testing"

// The full model has YOLO11-L's parameter count as Ultralytics reports it
// (25,372,160: yolo11.yaml, scale l), which pins every layer's shape; the
// tiny model is about a sixteenth of it.
func TestArchParameterCount(t *testing.T) {
	g, n, err := arch(sizeFull, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	if n != fullParams {
		t.Errorf("full: %d parameters as Ultralytics counts them, want %d (off by %d)", n, fullParams, n-fullParams)
	}
	t.Logf("full: %d ONNX initializer values", g.ParamCount())
	_, tiny, err := arch(sizeTiny, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	if tiny > fullParams/10 || tiny < fullParams/30 {
		t.Errorf("tiny: %d parameters, want about a sixteenth of %d", tiny, fullParams)
	}
	if _, _, err := arch("huge", archSeed); err == nil {
		t.Error("size huge: no error")
	}
}
