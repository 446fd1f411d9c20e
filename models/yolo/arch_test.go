package yolo

import "testing"

// The full model has YOLO11-L's parameter count as Ultralytics reports it
// (25,372,160: yolo11.yaml, scale l), which pins every layer's shape; the
// tiny model is about a sixteenth of it.
func TestArchParameterCount(t *testing.T) {
	g, n, err := Arch(SizeFull, ArchSeed)
	if err != nil {
		t.Fatal(err)
	}
	if n != FullParams {
		t.Errorf("full: %d parameters as Ultralytics counts them, want %d (off by %d)", n, FullParams, n-FullParams)
	}
	t.Logf("full: %d ONNX initializer values", g.ParamCount())
	_, tiny, err := Arch(SizeTiny, ArchSeed)
	if err != nil {
		t.Fatal(err)
	}
	if tiny > FullParams/10 || tiny < FullParams/30 {
		t.Errorf("tiny: %d parameters, want about a sixteenth of %d", tiny, FullParams)
	}
	if _, _, err := Arch("huge", ArchSeed); err == nil {
		t.Error("size huge: no error")
	}
}
