package backendtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
)

type fakeSession struct{ in, out []backend.Info }

func (f fakeSession) Inputs() []backend.Info  { return f.in }
func (f fakeSession) Outputs() []backend.Info { return f.out }
func (f fakeSession) Run(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
	return nil, nil
}
func (f fakeSession) Close() error { return nil }

func TestValidate(t *testing.T) {
	img := backend.Info{Name: "input_tensor:0", DType: backend.Float32, Shape: []int64{-1, 3, 224, 224}}
	am := backend.Info{Name: "ArgMax:0", DType: backend.Int64, Shape: []int64{-1}}
	sm := backend.Info{Name: "softmax_tensor:0", DType: backend.Float32, Shape: []int64{-1, 1001}}
	want := func() ([]backend.Info, []backend.Info) { return []backend.Info{img}, []backend.Info{am} }
	cases := []struct {
		name    string
		in, out []backend.Info
		errs    []string
	}{
		{"exact", []backend.Info{img}, []backend.Info{am, sm}, nil},
		{"fixed dims in model where contract is fixed", []backend.Info{{Name: img.Name, DType: backend.Float32, Shape: []int64{-1, 3, -1, -1}}}, []backend.Info{am}, nil},
		{"static batch", []backend.Info{{Name: img.Name, DType: backend.Float32, Shape: []int64{1, 3, 224, 224}}}, []backend.Info{am}, []string{"has shape [1,3,224,224], want [N,3,224,224]"}},
		{"nhwc", []backend.Info{{Name: img.Name, DType: backend.Float32, Shape: []int64{-1, 224, 224, 3}}}, []backend.Info{am}, []string{"want [N,3,224,224]"}},
		{"float16 and extra input", []backend.Info{{Name: img.Name, DType: backend.Float16, Shape: img.Shape}, {Name: "is_training", DType: backend.Bool, Shape: []int64{}}}, []backend.Info{am},
			[]string{`input "input_tensor:0" is float16, want float32`, `unexpected input "is_training" (bool [])`}},
		{"no argmax", []backend.Info{img}, []backend.Info{sm}, []string{`output "ArgMax:0" missing (model outputs: "softmax_tensor:0")`}},
		{"argmax int32", []backend.Info{img}, []backend.Info{{Name: am.Name, DType: backend.Int32, Shape: am.Shape}}, []string{"is int32, want int64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wi, wo := want()
			err := Validate(fakeSession{c.in, c.out}, wi, wo)
			if len(c.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrContract) {
				t.Fatalf("err = %v, want ErrContract", err)
			}
			for _, e := range c.errs {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("err = %v\nwant it to contain %q", err, e)
				}
			}
		})
	}
}
