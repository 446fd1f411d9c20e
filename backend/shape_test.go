package backend

import "testing"

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
