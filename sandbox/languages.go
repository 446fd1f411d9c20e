package sandbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Tool is a command a language needs and the Debian package that
// provides it.
type Tool struct {
	Command string
	Package string
}

// MissingToolError says which command of a language is not installed and
// how to install it. It wraps ErrToolchainMissing.
type MissingToolError struct {
	Language string
	Tool     Tool
	Err      error // the lookup's error
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("sandbox: %s needs %s, which is not installed (Debian: apt-get install %s): %v", e.Language, e.Tool.Command, e.Tool.Package, e.Err)
}

// Unwrap returns ErrToolchainMissing.
func (e *MissingToolError) Unwrap() error { return ErrToolchainMissing }

// Language says how a program in one language is compiled and run.
type Language struct {
	Name string
	// Source is the file the program is written to.
	Source string
	// Files are more files written beside it (a harness).
	Files map[string][]byte
	// Compile is the compile command (nil for an interpreted language);
	// Compiled says which of its exit statuses count as compiled (nil:
	// status 0).
	Compile  []string
	Compiled func(status int) bool
	// Run is the command that runs the program.
	Run []string
	// Tools are the commands Compile and Run need.
	Tools []Tool
	// CompileLimits and RunLimits are the steps' limits (zero fields: the
	// Sandbox's).
	CompileLimits, RunLimits Limits
	// Env are more NAME=value variables for both steps.
	Env []string
	// Cache is a folder inside the program's folder that the compile step
	// fills with work later compiles can reuse (Go's build cache). The
	// Sandbox keeps a copy of the first one, taken before the program
	// runs, and puts it into the folders of later programs (as root, hard
	// links to files only root may change).
	Cache string
}

// CompileTimeout is the wall-clock limit of the built-in languages'
// compile steps: mxeval's compile_timeout.
const CompileTimeout = 100 * time.Second

// The built-in languages run programs as amazon-science/mxeval
// (mxeval/execution.py, commit e09974f) does in check_correctness_*: the
// same compile and run commands on a file of the same extension, a
// compiled program counted only when its compiler exits 0 (TypeScript: 0
// or 2, tsc's "errors, but JavaScript written"). Python runs the file with
// python3 (mxeval's in-process exec with its guards is the MBXP scorer's
// harness, accuracy/mbxp). Go is built, then run, where mxeval calls `go
// run`, so that the build has the compile limits.
var builtin = map[string]*Language{
	"python": {
		Name: "python", Source: "main.py",
		Run:   []string{"python3", "main.py"},
		Tools: []Tool{{"python3", "python3"}},
		Env:   []string{"PYTHONDONTWRITEBYTECODE=1"},
	},
	"cpp": {
		Name: "cpp", Source: "main.cpp",
		Compile:       []string{"g++", "main.cpp", "-o", "main_cpp"},
		Run:           []string{"./main_cpp"},
		Tools:         []Tool{{"g++", "g++"}},
		CompileLimits: Limits{Wall: CompileTimeout, CPU: CompileTimeout},
	},
	"javascript": {
		Name: "javascript", Source: "main.js",
		Run:   []string{"node", "main.js"},
		Tools: []Tool{{"node", "nodejs"}},
	},
	"typescript": {
		Name: "typescript", Source: "main.ts",
		Compile:       []string{"tsc", "main.ts", "--target", "es5", "--lib", "es2016"},
		Compiled:      func(status int) bool { return status == 0 || status == 2 },
		Run:           []string{"node", "main.js"},
		Tools:         []Tool{{"tsc", "node-typescript (or make setup, which installs typescript from npm)"}, {"node", "nodejs"}},
		CompileLimits: Limits{Wall: CompileTimeout, CPU: CompileTimeout},
	},
	"php": {
		Name: "php", Source: "main.php",
		Run:   []string{"php", "main.php"},
		Tools: []Tool{{"php", "php-cli"}},
	},
	"ruby": {
		Name: "ruby", Source: "main.rb",
		Run:   []string{"ruby", "main.rb"},
		Tools: []Tool{{"ruby", "ruby"}},
	},
	"perl": {
		Name: "perl", Source: "main.pl",
		Run:   []string{"perl", "main.pl"},
		Tools: []Tool{{"perl", "perl"}},
	},
	"go": {
		Name: "go", Source: "main.go",
		Compile: []string{"go", "build", "-o", "main_go", "main.go"},
		Run:     []string{"./main_go"},
		Tools:   []Tool{{"go", "golang-go"}},
		// No network, no toolchain download, no cgo; the build cache is in
		// the folder (HOME) and kept by the Sandbox for the next program.
		Env:           []string{"CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-buildvcs=false"},
		Cache:         ".cache/go-build",
		CompileLimits: Limits{Wall: CompileTimeout, CPU: CompileTimeout},
	},
	"java": {
		Name: "java", Source: "main.java",
		Compile:       []string{"javac", "main.java"},
		Run:           []string{"java", "-cp", ".", "Main"},
		Tools:         []Tool{{"javac", "default-jdk"}, {"java", "default-jdk"}},
		CompileLimits: Limits{Wall: CompileTimeout, CPU: CompileTimeout},
	},
}

// Lang returns a copy of a built-in language by name (python, cpp,
// javascript, typescript, php, ruby, perl, go, java).
func Lang(name string) (*Language, error) {
	l, ok := builtin[name]
	if !ok {
		return nil, fmt.Errorf("sandbox: no language %q (known: %v)", name, Languages())
	}
	c := *l
	c.Files = maps.Clone(l.Files)
	c.Tools = slices.Clone(l.Tools)
	return &c, nil
}

// Languages lists the built-in languages' names, sorted.
func Languages() []string { return slices.Sorted(maps.Keys(builtin)) }

// Toolchain checks that every tool of l is installed where the sandbox's
// programs can run it; the error is a *MissingToolError.
func (s *Sandbox) Toolchain(l *Language) error {
	for _, t := range l.Tools {
		if _, err := s.Look(t.Command); err != nil {
			if !errors.Is(err, ErrToolchainMissing) {
				return err
			}
			return &MissingToolError{Language: l.Name, Tool: t, Err: err}
		}
	}
	return nil
}

// Outcome is what became of one program.
type Outcome struct {
	// Compile is the compile step's result (nil for an interpreted
	// language); Compiled says whether it counted as compiled.
	Compile  *Result
	Compiled bool
	// Run is the run step's result (nil when it did not compile).
	Run *Result
}

// Passed: compiled (or interpreted) and ran to exit status 0.
func (o Outcome) Passed() bool { return o.Run != nil && o.Run.Verdict == OK }

// RunProgram compiles (where l has a compile step) and runs source in a
// new folder with stdin, then removes the folder. A missing toolchain is a
// *MissingToolError, found before anything runs.
func (s *Sandbox) RunProgram(ctx context.Context, l *Language, source, stdin []byte) (Outcome, error) {
	if err := s.Toolchain(l); err != nil {
		return Outcome{}, err
	}
	files := maps.Clone(l.Files)
	if files == nil {
		files = map[string][]byte{}
	}
	files[l.Source] = source
	f, err := s.NewFolder(files)
	if err != nil {
		return Outcome{}, err
	}
	defer f.Close()
	var o Outcome
	if l.Compile != nil {
		if l.Cache != "" {
			if err := checkName(l.Cache); err != nil {
				return o, err
			}
			s.seedCache(f, l.Cache)
		}
		r, err := f.Exec(ctx, Step{Argv: l.Compile, Env: l.Env, Limits: l.CompileLimits})
		if err != nil {
			return o, err
		}
		o.Compile = &r
		ok := r.Verdict == OK
		if l.Compiled != nil {
			ok = r.Verdict <= Exited && l.Compiled(r.ExitCode)
		}
		if !ok {
			return o, f.Close()
		}
		if l.Cache != "" {
			s.keepCache(f, l.Cache)
		}
	}
	o.Compiled = true
	r, err := f.Exec(ctx, Step{Argv: l.Run, Stdin: stdin, Env: l.Env, Limits: l.RunLimits})
	if err != nil {
		return o, err
	}
	o.Run = &r
	return o, f.Close()
}
