package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// base is package check's results tree, which passes its checker.
const base = "../check/testdata/base"

var lineRe = regexp.MustCompile(`(?s)<tr data-line="([^"]+)">(.*?)</tr>`)
var cellRe = regexp.MustCompile(`(?s)<td(?: class="([a-z]*)")?>(.*?)</td>`)

// treeLines reads the results tree table: line → its cells (class, text).
func treeLines(t *testing.T, page string) (map[string][][2]string, []string) {
	t.Helper()
	head := regexp.MustCompile(`(?s)<table class="treelines"><tr>(.*?)</tr>`).FindStringSubmatch(page)
	if head == nil {
		t.Fatal("no results tree table")
	}
	var cols []string
	for _, m := range regexp.MustCompile(`<th>([^<]*)</th>`).FindAllStringSubmatch(head[1], -1) {
		cols = append(cols, m[1])
	}
	out := map[string][][2]string{}
	for _, m := range lineRe.FindAllStringSubmatch(page, -1) {
		var cells [][2]string
		for _, c := range cellRe.FindAllStringSubmatch(m[2], -1) {
			text := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(c[2], "")
			cells = append(cells, [2]string{c[1], text})
		}
		out[m[1]] = cells
	}
	return out, cols
}

func col(t *testing.T, cols []string, name string) int {
	t.Helper()
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, cols)
	return -1
}

// A results tree gets one line per system × benchmark × scenario with the
// performance verdict and metric, the accuracy against the benchmark's
// target, each compliance test and the checker's verdict, here all
// passing (check's own fixture passes its checker).
func TestResultsTreeLines(t *testing.T) {
	page := render(t, Options{Paths: []string{base}})
	lines, cols := treeLines(t, page)
	want := []string{"go_llm_box/llama2-70b-99.9/Offline", "go_llm_box/llama2-70b-99.9/Server", "go_null_sut/resnet/MultiStream", "go_null_sut/resnet/Offline", "go_null_sut/resnet/SingleStream"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %v", len(lines), len(want), lines)
	}
	if !strings.Contains(page, `data-check="PASS"`) {
		t.Error("the checker's verdict on its own passing tree is not PASS")
	}
	for _, w := range want {
		l, ok := lines[w]
		if !ok {
			t.Fatalf("no line %s", w)
		}
		if got := l[col(t, cols, "checker")]; got[1] != "PASS" {
			t.Errorf("%s: checker %q", w, got)
		}
		acc := l[col(t, cols, "accuracy against target")]
		if acc[0] != "valid" || !strings.HasPrefix(acc[1], "PASS: ") {
			t.Errorf("%s: accuracy %q", w, acc)
		}
	}
	r := lines["go_null_sut/resnet/Offline"]
	if got := r[col(t, cols, "accuracy against target")][1]; got != "PASS: acc 76.500 (target ≥ 75.7)" {
		t.Errorf("resnet Offline accuracy %q", got)
	}
	for _, test := range []string{"TEST01", "TEST04"} {
		if got := r[col(t, cols, test)]; got[1] != "PASS" {
			t.Errorf("resnet Offline %s: %q", test, got)
		}
	}
	if got := r[col(t, cols, "TEST06")][1]; got != "—" {
		t.Errorf("resnet needs no TEST06: %q", got)
	}
	if got := lines["go_llm_box/llama2-70b-99.9/Server"][col(t, cols, "TEST06")][1]; got != "PASS" {
		t.Errorf("llama2 Server TEST06: %q", got)
	}
	perf := lines["go_llm_box/llama2-70b-99.9/Server"][col(t, cols, "performance")][1]
	if !strings.HasPrefix(perf, "VALID: 1013 samples/s completed") {
		t.Errorf("llama2 Server performance %q", perf)
	}
}

// The checker's messages land on the line they name, its verdict turns
// FAIL there, and a failing compliance test, a missing required one and
// an accuracy under its target show on their lines.
func TestResultsTreeShowsWhatFails(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	copyDir(t, base, tree)
	res := filepath.Join(tree, "closed", "GoTest", "results", "go_null_sut", "resnet")
	// Offline: TEST04 fails its performance check.
	os.WriteFile(filepath.Join(res, "Offline", "TEST04", "verify_performance.txt"), []byte("Reference score = 1000.0\nTest score = 2000.0\nTEST FAIL\n"), 0o644)
	// SingleStream: TEST01 removed (a required test).
	os.RemoveAll(filepath.Join(res, "SingleStream", "TEST01"))
	// MultiStream: accuracy under the target.
	os.WriteFile(filepath.Join(res, "MultiStream", "accuracy", "accuracy.txt"), []byte("accuracy=70.000%, good=35000, total=50000\nhash=abc\n"), 0o644)
	page := render(t, Options{Paths: []string{tree}})
	lines, cols := treeLines(t, page)
	if !strings.Contains(page, `data-check="FAIL"`) {
		t.Error("the tree's checker verdict is not FAIL")
	}
	off := lines["go_null_sut/resnet/Offline"]
	if got := off[col(t, cols, "TEST04")]; got[0] != "invalid" || !strings.HasPrefix(got[1], "FAIL") {
		t.Errorf("Offline TEST04: %q", got)
	}
	if got := off[col(t, cols, "checker")]; got[0] != "invalid" || !strings.Contains(got[1], "Compliance test performance check in "+filepath.Join(res, "Offline", "TEST04")+" failed") {
		t.Errorf("Offline checker cell: %q", got)
	}
	ss := lines["go_null_sut/resnet/SingleStream"]
	if got := ss[col(t, cols, "TEST01")]; got[1] != "missing" {
		t.Errorf("SingleStream TEST01: %q", got)
	}
	if got := ss[col(t, cols, "checker")]; got[0] != "invalid" || !strings.Contains(got[1], "ERROR") {
		t.Errorf("SingleStream checker cell: %q", got)
	}
	ms := lines["go_null_sut/resnet/MultiStream"]
	if got := ms[col(t, cols, "accuracy against target")]; got[0] != "invalid" || got[1] != "FAIL: acc 70.000 (target ≥ 75.7)" {
		t.Errorf("MultiStream accuracy: %q", got)
	}
	if got := ms[col(t, cols, "checker")]; !strings.Contains(got[1], "accuracy not met") {
		t.Errorf("MultiStream checker cell lacks the accuracy error: %q", got)
	}
	// The llama2 lines are untouched and still pass.
	if got := lines["go_llm_box/llama2-70b-99.9/Server"][col(t, cols, "checker")][1]; got != "PASS" {
		t.Errorf("an untouched line: %q", got)
	}
}
