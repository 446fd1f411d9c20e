package coco2014

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Permutation is numpy's RandomState(2023).permutation (testdata/
// make_golden.py).
func TestPermutationMatchesNumpy(t *testing.T) {
	b, err := os.ReadFile("testdata/permutation.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		N           int   `json:"n"`
		Head        []int `json:"head"`
		Tail        []int `json:"tail"`
		WeightedSum int64 `json:"weighted_sum"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	p := Permutation(SelectSeed, g.N)
	if !slices.Equal(p[:20], g.Head) || !slices.Equal(p[g.N-20:], g.Tail) {
		t.Errorf("permutation head %v tail %v; numpy %v %v", p[:20], p[g.N-20:], g.Head, g.Tail)
	}
	var s int64
	for i, v := range p {
		s += int64(i) * int64(v)
	}
	if s != g.WeightedSum {
		t.Errorf("weighted sum %d, numpy %d", s, g.WeightedSum)
	}
}

// Select on a synthetic captions_val2014.json writes what coco.py's pandas
// steps write, byte for byte; the zip form gives the same.
func TestSelectMatchesReferenceSteps(t *testing.T) {
	ann, err := os.ReadFile("testdata/annotations.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/selection.tsv")
	if err != nil {
		t.Fatal(err)
	}
	caps, err := Select(bytes.NewReader(ann), 25, SelectSeed)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteTSV(&got, caps); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("selection differs from pandas':\n%s\nwant:\n%s", got.String(), want)
	}
	dir := t.TempDir()
	zp := filepath.Join(dir, "annotations_trainval2014.zip")
	f, _ := os.Create(zp)
	zw := zip.NewWriter(f)
	w, _ := zw.Create(AnnotationsMember)
	w.Write(ann)
	zw.Close()
	f.Close()
	n, err := SelectFile(zp, dir, 25, SelectSeed)
	if err != nil || n != 24 {
		t.Fatalf("SelectFile: %d, %v", n, err)
	}
	for _, name := range []string{CaptionsFile, SourceFile} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(b, want) {
			t.Errorf("%s differs", name)
		}
	}
	if _, err := Select(bytes.NewReader([]byte(`{"annotations": []}`)), 5, 1); err == nil {
		t.Error("empty annotations accepted")
	}
}
