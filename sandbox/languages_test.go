//go:build linux

package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/internal/deps"
)

// langSandbox is a sandbox whose tool folders include the typescript that
// make setup installs into the deps folder; fresh makes a new one (else
// the package's shared one, whose Go build cache is made once).
func langSandbox(t *testing.T, fresh bool) *Sandbox {
	t.Helper()
	if !fresh {
		sharedOnce.Do(func() { shared = langSandbox(t, true) })
		return shared
	}
	dirs := DefaultToolDirs()
	if tsc, err := deps.Find("node_modules/typescript/bin/tsc"); err == nil {
		dirs = append(dirs, filepath.Dir(tsc))
	}
	s, err := New(Config{ToolDirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	shared     *Sandbox
	sharedOnce sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// Each language: a program that greets its standard input, one that does
// not compile (compiled languages), and one that fails at run time.
var langCases = map[string]struct{ hello, broken, fails string }{
	"python": {
		hello: "import sys\nprint('hi ' + sys.stdin.read().strip())\n",
		fails: "raise ValueError('no')\n",
	},
	"cpp": {
		hello:  "#include <iostream>\n#include <string>\nint main() { std::string s; std::cin >> s; std::cout << \"hi \" << s << \"\\n\"; }\n",
		broken: "int main( {\n",
		fails:  "#include <stdexcept>\nint main() { throw std::runtime_error(\"no\"); }\n",
	},
	"javascript": {
		hello: "const s = require('fs').readFileSync(0, 'utf8').trim();\nconsole.log('hi ' + s);\n",
		fails: "throw new Error('no');\n",
	},
	"typescript": {
		hello: "declare var require: any;\nconst s: string = require('fs').readFileSync(0, 'utf8').trim();\nconsole.log('hi ' + s);\n",
		// A type error: tsc exits 2 but still writes main.js, which runs.
		fails: "const n: number = 'text';\nthrow new Error('no');\n",
	},
	"php": {
		hello: "<?php\n$s = trim(fgets(STDIN));\necho \"hi $s\\n\";\n",
		fails: "<?php\nthrow new Exception('no');\n",
	},
	"ruby": {
		hello: "s = STDIN.read.strip\nputs \"hi #{s}\"\n",
		fails: "raise 'no'\n",
	},
	"perl": {
		hello: "my $s = <STDIN>; chomp $s; print \"hi $s\\n\";\n",
		fails: "die 'no';\n",
	},
	"go": {
		hello:  "package main\n\nimport (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\ts, _ := bufio.NewReader(os.Stdin).ReadString('\\n')\n\tfmt.Printf(\"hi %s\", s)\n}\n",
		broken: "package main\n\nfunc main() { undefined() }\n",
		fails:  "package main\n\nfunc main() { panic(\"no\") }\n",
	},
	"java": {
		hello:  "import java.util.Scanner;\n\nclass Main {\n    public static void main(String[] args) {\n        System.out.println(\"hi \" + new Scanner(System.in).next());\n    }\n}\n",
		broken: "class Main { void f( }\n",
		fails:  "class Main {\n    public static void main(String[] args) {\n        throw new RuntimeException(\"no\");\n    }\n}\n",
	},
}

func TestLanguagesCompileAndRunPrograms(t *testing.T) {
	s := langSandbox(t, false)
	if got := len(Languages()); got != len(langCases) {
		t.Fatalf("%d built-in languages, %d tested", got, len(langCases))
	}
	for _, name := range Languages() {
		t.Run(name, func(t *testing.T) {
			l, err := Lang(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Toolchain(l); err != nil {
				var m *MissingToolError
				if !errors.As(err, &m) || !strings.Contains(err.Error(), "apt-get install") {
					t.Fatalf("missing toolchain error %v does not name the package", err)
				}
				t.Skip(err)
			}
			c := langCases[name]
			o, err := s.RunProgram(context.Background(), l, []byte(c.hello), []byte("world\n"))
			if err != nil {
				t.Fatal(err)
			}
			if !o.Passed() || !o.Compiled || string(o.Run.Stdout) != "hi world\n" {
				t.Fatalf("hello: compiled %v, run %+v, compile %+v", o.Compiled, o.Run, o.Compile)
			}
			if (l.Compile != nil) != (o.Compile != nil) {
				t.Fatalf("compile step %v for a language with compile command %v", o.Compile, l.Compile)
			}
			o, err = s.RunProgram(context.Background(), l, []byte(c.fails), nil)
			if err != nil {
				t.Fatal(err)
			}
			if o.Passed() || !o.Compiled || o.Run == nil || o.Run.Verdict == OK || !strings.Contains(string(o.Run.Stderr), "no") {
				t.Fatalf("failing program: passed %v, compiled %v, run %+v", o.Passed(), o.Compiled, o.Run)
			}
			if c.broken != "" {
				o, err = s.RunProgram(context.Background(), l, []byte(c.broken), nil)
				if err != nil {
					t.Fatal(err)
				}
				if o.Passed() || o.Compiled || o.Run != nil || o.Compile == nil || len(o.Compile.Stderr) == 0 {
					t.Fatalf("broken program: passed %v, compiled %v, compile %+v", o.Passed(), o.Compiled, o.Compile)
				}
			}
		})
	}
}

func TestMissingToolchainNamesThePackage(t *testing.T) {
	s := langSandbox(t, false)
	l := &Language{Name: "cobol", Source: "main.cob", Run: []string{"cobc-mlperf-missing"}, Tools: []Tool{{"cobc-mlperf-missing", "gnucobol"}}}
	_, err := s.RunProgram(context.Background(), l, []byte("x"), nil)
	var m *MissingToolError
	if !errors.Is(err, ErrToolchainMissing) || !errors.As(err, &m) || m.Tool.Package != "gnucobol" || !strings.Contains(err.Error(), "apt-get install gnucobol") {
		t.Fatalf("err %v", err)
	}
	if _, err := Lang("cobol"); err == nil {
		t.Fatal("Lang accepted an unknown language")
	}
}

func TestLangReturnsACopy(t *testing.T) {
	a, _ := Lang("cpp")
	a.Compile[0] = "clang++"
	a.Tools[0].Command = "clang++"
	b, _ := Lang("cpp")
	if b.Tools[0].Command != "g++" {
		t.Fatal("changing one Lang result changed the built-in language")
	}
}

// TestGoBuildCacheIsKeptAndShared: the second Go program builds from the
// first one's cache (the standard library is not compiled again), and a
// program cannot change the kept copy.
func TestGoBuildCacheIsKeptAndShared(t *testing.T) {
	s := langSandbox(t, false)
	l, _ := Lang("go")
	if err := s.Toolchain(l); err != nil {
		t.Skip(err)
	}
	hello := []byte(langCases["go"].hello)
	if o, err := s.RunProgram(context.Background(), l, hello, []byte("a\n")); err != nil || !o.Passed() {
		t.Fatalf("first: %v %+v", err, o.Compile)
	}
	s.mu.Lock()
	store := s.caches[".cache/go-build"]
	s.mu.Unlock()
	if store == "" {
		t.Fatal("no build cache kept after a successful Go compile")
	}
	// A program that overwrites every file of its seeded cache, then a
	// normal one; the kept copy does not change.
	before := digest(t, store)
	vandal := []byte("package main\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\nfunc main() {\n\tfilepath.Walk(\".cache/go-build\", func(p string, fi os.FileInfo, err error) error {\n\t\tif err == nil && fi.Mode().IsRegular() {\n\t\t\tos.WriteFile(p, []byte(\"junk\"), 0o644)\n\t\t}\n\t\treturn nil\n\t})\n}\n")
	o, err := s.RunProgram(context.Background(), l, vandal, nil)
	if err != nil || !o.Passed() {
		t.Fatalf("vandal: %v %+v %+v", err, o.Compile, o.Run)
	}
	if after := digest(t, store); after != before {
		t.Fatal("a program changed the kept build cache")
	}
	o, err = s.RunProgram(context.Background(), l, hello, []byte("b\n"))
	if err != nil || !o.Passed() || string(o.Run.Stdout) != "hi b\n" {
		t.Fatalf("after the vandal: %v compile %+v run %+v", err, o.Compile, o.Run)
	}
	// Close removes the kept copy (on a Sandbox of its own, so that the
	// shared one keeps its cache).
	s2 := langSandbox(t, true)
	s2.caches[".cache/go-build"] = store + "-copy"
	os.CopyFS(store+"-copy", os.DirFS(store))
	s2.Close()
	if _, err := os.Stat(store + "-copy"); !os.IsNotExist(err) {
		t.Fatalf("kept cache %s not removed by Close", store+"-copy")
	}
}

// digest hashes the names and contents of the files under dir.
func digest(t *testing.T, dir string) string {
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			fmt.Fprintf(h, "%s %d\n", p, len(b))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}
