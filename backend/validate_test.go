package backend

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type fakeSession struct{ in, out []Info }

func (f fakeSession) Inputs() []Info                                  { return f.in }
func (f fakeSession) Outputs() []Info                                 { return f.out }
func (f fakeSession) Run(context.Context, []Tensor) ([]Tensor, error) { return nil, nil }
func (f fakeSession) Close() error                                    { return nil }

func TestValidate(t *testing.T) {
	img := Info{Name: "input_tensor:0", DType: Float32, Shape: []int64{-1, 3, 224, 224}}
	am := Info{Name: "ArgMax:0", DType: Int64, Shape: []int64{-1}}
	sm := Info{Name: "softmax_tensor:0", DType: Float32, Shape: []int64{-1, 1001}}
	want := func() ([]Info, []Info) { return []Info{img}, []Info{am} }
	cases := []struct {
		name    string
		in, out []Info
		errs    []string
	}{
		{"exact", []Info{img}, []Info{am, sm}, nil},
		{"fixed dims in model where contract is fixed", []Info{{Name: img.Name, DType: Float32, Shape: []int64{-1, 3, -1, -1}}}, []Info{am}, nil},
		{"static batch", []Info{{Name: img.Name, DType: Float32, Shape: []int64{1, 3, 224, 224}}}, []Info{am}, []string{"has shape [1,3,224,224], want [N,3,224,224]"}},
		{"nhwc", []Info{{Name: img.Name, DType: Float32, Shape: []int64{-1, 224, 224, 3}}}, []Info{am}, []string{"want [N,3,224,224]"}},
		{"float16 and extra input", []Info{{Name: img.Name, DType: Float16, Shape: img.Shape}, {Name: "is_training", DType: Bool, Shape: []int64{}}}, []Info{am},
			[]string{`input "input_tensor:0" is float16, want float32`, `unexpected input "is_training" (bool [])`}},
		{"no argmax", []Info{img}, []Info{sm}, []string{`output "ArgMax:0" missing (model outputs: "softmax_tensor:0")`}},
		{"argmax int32", []Info{img}, []Info{{Name: am.Name, DType: Int32, Shape: am.Shape}}, []string{"is int32, want int64"}},
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

func TestFormatAndLen(t *testing.T) {
	if s := FormatShape([]int64{-1, 3, -1}); s != "[N,3,?]" {
		t.Errorf("FormatShape = %s", s)
	}
	if Elements([]int64{2, 3}) != 6 || Elements([]int64{-1, 3}) != -1 || Elements(nil) != 1 {
		t.Error("Elements")
	}
	cases := []struct {
		dt   DType
		data any
		want int
	}{
		{Float32, []float32{1, 2}, 2}, {Float16, []uint16{1}, 1}, {Int64, []int64{}, 0}, {Int32, []int32{1, 2, 3}, 3},
		{Uint8, []uint8{1}, 1}, {Bool, []bool{true}, 1}, {Float32, []float64{1}, -1}, {Int64, []int32{1}, -1}, {Float32, nil, -1},
	}
	for _, c := range cases {
		if got := DataLen(c.dt, c.data); got != c.want {
			t.Errorf("DataLen(%v, %T) = %d, want %d", c.dt, c.data, got, c.want)
		}
	}
}
