package mutate

import (
	"fmt"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

const sample = `package p

import "errors"

type T struct {
	A [4]byte ` + "`json:\"a\"`" + `
}

func (t *T) Check(n int, s string) (int, error) {
	if n >= 10 && s != "" {
		return 0, errors.New("p: n too large")
	}
	if n == 3 {
		n = n * 2
	}
	return n + 1, nil
}

var half = 0.5

func f(err error) bool { return err != nil }
`

// want lists every mutant of sample: line, operator, old, new.
var want = []string{
	"10 cond-drop [n >= 10 && s != \"\"] [(n >= 10)]",
	"10 cond-drop [n >= 10 && s != \"\"] [(s != \"\")]",
	"10 cmp-flip [>=] [<]",
	"10 boundary [>=] [>]",
	"10 const [10] [11]",
	"10 cmp-flip [!=] [==]",
	"10 err-drop [n >= 10 && s != \"\"] [(n >= 10 && s != \"\") && false]",
	"13 cmp-flip [==] [!=]",
	"13 const [3] [4]",
	"13 branch-skip [n == 3] [(n == 3) && false]",
	"14 arith [*] [/]",
	"14 const [2] [3]",
	"16 arith [+] [-]",
	"16 const [1] [2]",
	"19 const [0.5] [1.0]",
}

func TestFindListsEveryOperatorOnce(t *testing.T) {
	ms, err := Find("p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%d %s [%s] [%s]", m.Line, m.Op, m.Old, m.New))
	}
	// Find walks the tree; compare as sets, then check the count.
	if strings.Join(sorted(got), "\n") != strings.Join(sorted(want), "\n") {
		t.Errorf("mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func TestApplyEditsOnlyTheRangeAndKeepsItParsable(t *testing.T) {
	ms, err := Find("p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		out, err := m.Apply([]byte(sample))
		if err != nil {
			t.Fatalf("%s: %v", m.Key(), err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
			t.Errorf("%s: mutated source does not parse: %v", m.Key(), err)
		}
		if strings.Count(string(out), "\n") != strings.Count(sample, "\n") {
			t.Errorf("%s: line count changed", m.Key())
		}
		if string(out[:m.Start]) != sample[:m.Start] || string(out[m.Start+len(m.New):]) != sample[m.End:] {
			t.Errorf("%s: bytes outside the edit changed", m.Key())
		}
	}
}

func TestApplyRefusesAChangedFile(t *testing.T) {
	ms, err := Find("p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(sample, "n >= 10", "n >= 12", 1)
	if _, err := ms[0].Apply([]byte(changed)); err == nil || !strings.Contains(err.Error(), "file changed") {
		t.Errorf("Apply on a changed file: err = %v, want 'file changed'", err)
	}
}

func TestValuesBesideAnErrorAreNotMutated(t *testing.T) {
	src := "package p\nfunc g(n int) (int, error) {\n\tif n > 0 {\n\t\treturn 7, e(n + 1)\n\t}\n\treturn 8, nil\n}\n"
	ms, err := Find("p/g.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		if m.Op == Const || m.Op == Arith {
			got = append(got, m.Old+"→"+m.New)
		}
	}
	// 7 (beside an error) is left; n + 1 inside the error and 8 are mutated.
	if want := []string{"0→1", "+→-", "1→2", "8→9"}; !slices.Equal(got, want) {
		t.Errorf("const/arith mutants %v, want %v", got, want)
	}
}

func TestFileModesAreListedNotJudged(t *testing.T) {
	ms, err := Find("p/w.go", []byte("package p\nvar a, b, c = 0o644, 0755, 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	var skips []string
	for _, m := range ms {
		skips = append(skips, m.Old+":"+m.Skip)
	}
	want := []string{"0o644:" + SkipFileMode, "0755:" + SkipFileMode, "10:"}
	if !slices.Equal(skips, want) {
		t.Errorf("skips %q, want %q", skips, want)
	}
}

func TestMakeCapacityIsListedNotJudged(t *testing.T) {
	ms, err := Find("p/m.go", []byte("package p\nfunc f(n int) []byte { return make([]byte, n+1, n*4) }\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Old+"→"+m.New+":"+m.Skip)
	}
	want := []string{"+→-:", "1→2:", "*→/:" + SkipCapacity, "4→5:" + SkipCapacity}
	if !slices.Equal(got, want) {
		t.Errorf("mutants %q, want %q", got, want)
	}
}

func TestKeyNamesFuncOperatorAndOccurrence(t *testing.T) {
	src := "package p\nfunc g(a, b int) bool { return a < b || a < b }\n"
	ms, err := Find("p/g.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, m := range ms {
		if keys[m.Key()] {
			t.Errorf("key %s given twice", m.Key())
		}
		keys[m.Key()] = true
	}
	for _, k := range []string{"p/g.go:g:boundary:<→<=#1", "p/g.go:g:boundary:<→<=#2"} {
		if !keys[k] {
			t.Errorf("no key %s in %v", k, keys)
		}
	}
	// Moving the function down a line keeps its keys.
	ms2, _ := Find("p/g.go", []byte("package p\n\n"+src[len("package p\n"):]))
	for i := range ms2 {
		if ms2[i].Key() != ms[i].Key() || ms2[i].Line != ms[i].Line+1 {
			t.Errorf("mutant %d: key %s line %d after a shift, want %s line %d", i, ms2[i].Key(), ms2[i].Line, ms[i].Key(), ms[i].Line+1)
		}
	}
}

func TestFindRejectsBadSource(t *testing.T) {
	if _, err := Find("bad.go", []byte("package p\nfunc {")); err == nil || !strings.HasPrefix(err.Error(), "mutate: ") {
		t.Errorf("err = %v, want a mutate: parse error", err)
	}
}
