package ort

import "errors"

// dlopenGlobal is not implemented on Windows, where ONNX Runtime finds the
// CUDA DLLs on PATH itself.
func dlopenGlobal(string) error { return errors.New("not supported on Windows") }
