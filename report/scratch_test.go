package report

import (
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	out := os.Getenv("SCRATCH")
	if out == "" {
		t.Skip()
	}
	f := runs(t)
	if err := WriteFile(out+"/all.html", Options{Paths: []string{f.root}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out+"/cmp.html", Options{Paths: []string{f.server, f.serverSlower}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out+"/tree.html", Options{Paths: []string{"../check/testdata/base"}}); err != nil {
		t.Fatal(err)
	}
}

func TestScratchWW(t *testing.T) {
	for _, l := range []float64{0.05, 0.1, 0.45, 1.8, 5, 19, 20, 600, 601, 3600, 86400} {
		w := windowWidth(l)
		t.Logf("%g s: %g s windows, %g windows", l, w, l/w)
	}
}
