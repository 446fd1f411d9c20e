package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunJudgesEveryKindOfMutant runs the tool on testdata/mod, a module
// whose package has mutants that are killed, one that survives (Scale is
// tested only on 0), two in code no test runs, three listed as equivalent
// and a file mode that is listed but not judged, and checks the counts and
// the report.
func TestRunJudgesEveryKindOfMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary per mutant")
	}
	out := t.TempDir()
	t.Chdir("testdata/mod")
	var log bytes.Buffer
	o := options{out: out, equiv: "equivalent.txt", args: []string{"./calc"}}
	if err := run(context.Background(), o, []string{"./calc"}, &log); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	rep, err := os.ReadFile(filepath.Join(out, "calc.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**5 killed / 8 judged = 62.5 % (1 survived, 2 not covered, 3 equivalent, 0 not viable)**",
		"| calc/calc.go:16 Scale | arith | `*` → `/` | survived | `calc/calc.go:Scale:arith:*→/#1` |",
		"| calc/calc.go:19 unused | cmp-flip | `==` → `!=` | survived (not covered) |",
		"| calc/calc.go:9 Clamp | boundary | `>` → `>=` | v = hi returns hi either way. |",
		"| calc/calc.go:6 Clamp | branch-skip | `v < 0` → `(v < 0) && false` | killed by TestClamp |",
		"- command: `go run ./cmd/mutate ./calc`",
		"| calc/calc.go:22 - | const | `0o644` → `421` | file mode (octal literal): the mode a file gets depends on the umask |",
	} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	// The table reads the report back.
	var tab bytes.Buffer
	if err := writeTable(&tab, out); err != nil {
		t.Fatal(err)
	}
	if want := "| calc | – | 5/8 = 62 % | 3 | 12 |\n| **all** | **–** | **5/8 = 62 %** | | |\n"; !strings.HasSuffix(tab.String(), want) {
		t.Errorf("table:\n%s\nwant it to end in:\n%s", tab.String(), want)
	}
	// The working tree is never written.
	src, _ := os.ReadFile("calc/calc.go")
	if !strings.Contains(string(src), "return v * k") || !strings.Contains(string(src), "if v < 0 {") {
		t.Errorf("calc.go changed:\n%s", src)
	}
}

// TestReadEquivalents: a line without an argument is an error naming the
// line; a missing file lists none.
func TestReadEquivalents(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "eq.txt")
	os.WriteFile(bad, []byte("calc/calc.go:Clamp:boundary:<→<=#1\n"), 0o644)
	if _, err := readEquivalents(bad); err == nil || !strings.Contains(err.Error(), "eq.txt:1: want key, tab, argument") {
		t.Errorf("equivalent without argument: %v", err)
	}
	if m, err := readEquivalents(filepath.Join(t.TempDir(), "none.txt")); err != nil || len(m) != 0 {
		t.Errorf("missing equivalents file: %v, %v; want none", m, err)
	}
}

func TestCoverageCovers(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cover.out")
	os.WriteFile(prof, []byte("mode: set\nexample.com/m/p/a.go:3.10,5.2 1 1\nexample.com/m/p/a.go:7.10,9.2 1 0\nexample.com/m/q/b.go:1.1,2.2 1 0\n"), 0o644)
	c, err := readCover(prof, "example.com/m/p", "p")
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[int]bool{3: true, 5: true, 6: true, 7: false, 9: false, 10: true} {
		if got := c.covers("p/a.go", line); got != want {
			t.Errorf("line %d covered %v, want %v", line, got, want)
		}
	}
	if !c.covers("p/other.go", 1) {
		t.Error("a file the profile does not know counts as not covered")
	}
}
