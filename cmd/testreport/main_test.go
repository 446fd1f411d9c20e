package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestReportNamesEverySkipWithItsReason(t *testing.T) {
	events := []event{
		{Action: "run", Package: "p", Test: "TestA"},
		{Action: "output", Package: "p", Test: "TestA", Output: "=== RUN   TestA\n"},
		{Action: "output", Package: "p", Test: "TestA", Output: "    a_test.go:3: no curl here\n"},
		{Action: "output", Package: "p", Test: "TestA", Output: "--- SKIP: TestA (0.00s)\n"},
		{Action: "skip", Package: "p", Test: "TestA"},
		{Action: "output", Package: "p", Test: "TestB/sub", Output: "    a_test.go:4: ONNX Runtime not available: x\n"},
		{Action: "output", Package: "p", Test: "TestC", Output: "    c_test.go:9: something else\n"},
		{Action: "skip", Package: "p", Test: "TestB/sub"},
		{Action: "fail", Package: "p", Test: "TestC"},
		{Action: "pass", Package: "r", Test: "TestD"},
		{Action: "fail", Package: "p", Elapsed: 1.25},
		{Action: "skip", Package: "q"}, // no test files
		{Action: "pass", Package: "r", Elapsed: 0.5},
	}
	var in bytes.Buffer
	for _, e := range events {
		b, _ := json.Marshal(e)
		in.Write(append(b, '\n'))
	}
	r := newReport()
	for _, line := range strings.Split(strings.TrimSpace(in.String()), "\n") {
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		r.add(e)
	}
	var out bytes.Buffer
	r.write(&out)
	want := "FAIL p (1.2s)\nok   r (0.5s)\nFAILED p.TestC\nSKIP p.TestA: a_test.go:3: no curl here\nSKIP p.TestB/sub: a_test.go:4: ONNX Runtime not available: x\n1 passed, 1 failed, 2 skipped\n"
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}
}

// A package that fails with no failed test (it did not build) counts as
// one failure in the closing line, named with its package; a package
// whose failure is a failed test is not counted twice.
func TestPackageFailureWithoutAFailedTestIsCounted(t *testing.T) {
	r := newReport()
	for _, e := range []event{
		{Action: "fail", Package: "built", Test: "TestX"},
		{Action: "fail", Package: "built", Elapsed: 1},
		{Action: "fail", Package: "broken", Elapsed: 0},
		{Action: "pass", Package: "fine", Test: "TestY"},
	} {
		r.add(e)
	}
	var out bytes.Buffer
	r.write(&out)
	got := out.String()
	if !strings.HasSuffix(got, "1 passed, 2 failed, 0 skipped\n") || !strings.Contains(got, "FAILED broken (failed outside any test") || strings.Contains(got, "FAILED built (") {
		t.Errorf("report:\n%s", got)
	}
}
