package backendtest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mlperf-go/inference/backend"
)

// This file holds the contract check the tests of the synthetic
// architectures use: the benchmarks check their own contracts
// (models/<name>.CheckContract), with their fixed-batch rules.

// ErrContract reports a model whose inputs or outputs do not match what a
// benchmark needs.
var ErrContract = errors.New("backendtest: model does not match the contract")

// Validate checks a session against a benchmark's I/O contract before any
// run. Every wanted input must exist with the same dtype and rank, and every
// model input must be wanted (the benchmark feeds nothing else). Every wanted
// output must exist likewise; extra model outputs are allowed. A wanted
// dimension of -1 (dynamic, e.g. the batch) must be dynamic in the model
// too; a fixed wanted dimension matches the same size or a dynamic one. All
// problems are listed in one error wrapping ErrContract.
func Validate(s backend.Session, inputs, outputs []backend.Info) error {
	var probs []string
	probs = append(probs, match("input", s.Inputs(), inputs, true)...)
	probs = append(probs, match("output", s.Outputs(), outputs, false)...)
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrContract, strings.Join(probs, "; "))
}

func match(kind string, have, want []backend.Info, exact bool) []string {
	var probs []string
	byName := map[string]backend.Info{}
	for _, h := range have {
		byName[h.Name] = h
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.Name] = true
		h, ok := byName[w.Name]
		if !ok {
			probs = append(probs, fmt.Sprintf("%s %q missing (model %ss: %s)", kind, w.Name, kind, names(have)))
			continue
		}
		if h.DType != w.DType {
			probs = append(probs, fmt.Sprintf("%s %q is %v, want %v", kind, w.Name, h.DType, w.DType))
		}
		if !shapeFits(h.Shape, w.Shape) {
			probs = append(probs, fmt.Sprintf("%s %q has shape %s, want %s", kind, w.Name, backend.FormatShape(h.Shape), backend.FormatShape(w.Shape)))
		}
	}
	if exact {
		for _, h := range have {
			if !wanted[h.Name] {
				probs = append(probs, fmt.Sprintf("unexpected %s %q (%v %s)", kind, h.Name, h.DType, backend.FormatShape(h.Shape)))
			}
		}
	}
	return probs
}

func shapeFits(have, want []int64) bool {
	if len(have) != len(want) {
		return false
	}
	for i := range want {
		switch {
		case want[i] < 0 && have[i] >= 0:
			return false
		case want[i] >= 0 && have[i] >= 0 && have[i] != want[i]:
			return false
		}
	}
	return true
}

func names(infos []backend.Info) string {
	if len(infos) == 0 {
		return "none"
	}
	n := make([]string, len(infos))
	for i, in := range infos {
		n[i] = fmt.Sprintf("%q", in.Name)
	}
	return strings.Join(n, ", ")
}
