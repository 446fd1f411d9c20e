package mbxp

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/sandbox"
)

// Timeout is the time each program is given: evaluate_mbxp.py calls the
// checkers with timeout=20.0 (compilers get mxeval's 100 s).
const Timeout = 20 * time.Second

// pythonHarness runs a Python program as mxeval's check_correctness does.
//
//go:embed mxeval_check.py
var pythonHarness []byte

// Checker runs MBXP programs in a sandbox, one folder each. Safe for
// concurrent use.
type Checker struct {
	sb    *sandbox.Sandbox
	own   bool
	langs map[string]*sandbox.Language
}

// NewChecker returns a Checker running programs in sb, or, when sb is nil,
// in a new sandbox whose tool folders add the typescript that make setup
// installs in the deps folder (node_modules/typescript) and whose
// programs find lodash there (NODE_PATH), as MBXP's JavaScript tests need.
func NewChecker(sb *sandbox.Sandbox) (*Checker, error) {
	c := &Checker{sb: sb, langs: map[string]*sandbox.Language{}}
	nodePath := ""
	if lodash, err := deps.Find("node_modules/lodash/package.json"); err == nil {
		nodePath = filepath.Dir(filepath.Dir(lodash))
	}
	if sb == nil {
		cfg := sandbox.Config{ToolDirs: sandbox.DefaultToolDirs()}
		if tsc, err := deps.Find("node_modules/typescript/bin/tsc"); err == nil {
			cfg.ToolDirs = append(cfg.ToolDirs, filepath.Dir(tsc))
		}
		var err error
		if c.sb, err = sandbox.New(cfg); err != nil {
			return nil, fmt.Errorf("mbxp: %w", err)
		}
		c.own = true
	}
	for _, name := range []string{"python", "cpp", "javascript", "typescript", "php", "ruby", "perl", "go", "java"} {
		l, err := language(name, nodePath)
		if err != nil {
			return nil, err
		}
		c.langs[name] = l
	}
	return c, nil
}

// Close closes the sandbox NewChecker made (not one it was given).
func (c *Checker) Close() error {
	if c.own {
		return c.sb.Close()
	}
	return nil
}

// language is mxeval's check_correctness_<name> as a sandbox language.
func language(name, nodePath string) (*sandbox.Language, error) {
	var l *sandbox.Language
	if name == "python" {
		l = &sandbox.Language{
			Name: "python", Source: "main.py",
			Files: map[string][]byte{"mxeval_check.py": pythonHarness},
			Run:   []string{"python3", "mxeval_check.py"},
			Tools: []sandbox.Tool{{Command: "python3", Package: "python3"}},
			Env:   []string{"PYTHONDONTWRITEBYTECODE=1"},
		}
	} else {
		var err error
		if l, err = sandbox.Lang(name); err != nil {
			return nil, fmt.Errorf("mbxp: %w", err)
		}
	}
	l.RunLimits.Wall = Timeout
	l.RunLimits.CPU = Timeout
	switch name {
	case "python":
		// mxeval's alarm fires after 20 s of exec; its process is joined
		// for 21 s.
		l.RunLimits.Wall = Timeout + time.Second
	case "typescript":
		// mxeval counts a TypeScript program as compiled only when tsc
		// exits 2 ("errors, JavaScript written"): MBXP's tests import the
		// node module assert, which tsc cannot type without @types/node.
		l.Compiled = func(status int) bool { return status == 2 }
	}
	if nodePath != "" && (name == "javascript" || name == "typescript") {
		l.Env = append(l.Env, "NODE_PATH="+nodePath)
	}
	return l, nil
}

// Program is the text mxeval runs for a completion: prompt + completion +
// test, and for Python, newlines between them and a call of check on the
// entry point.
func Program(lang, prompt, completion, test, entryPoint string) string {
	if lang == "python" {
		return prompt + completion + "\n" + test + "\n" + "check(" + entryPoint + ")"
	}
	return prompt + completion + test
}

// Verdict is the outcome of one check.
type Verdict struct {
	Passed bool
	// Message is mxeval's "result": the standard error of the failing
	// step (the compiler's when the program did not compile; for Python,
	// "passed" or "failed: <exception>"), or why the program could not
	// run.
	Message string
	Outcome sandbox.Outcome
}

// ErrLanguage: a language the checker does not run (kotlin, scala,
// swift, csharp: mxeval has checkers, the reference scores none).
var ErrLanguage = errors.New("mbxp: language not supported")

// Check runs the program of a completion in lang as mxeval's
// check_correctness_<lang>(problem, completion, timeout=20) does. A
// missing toolchain is a *sandbox.MissingToolError.
func (c *Checker) Check(ctx context.Context, lang, prompt, completion, test, entryPoint string) (Verdict, error) {
	l, ok := c.langs[lang]
	if !ok {
		return Verdict{}, fmt.Errorf("%w: %q (supported: python, cpp, javascript, typescript, php, ruby, perl, go, java)", ErrLanguage, lang)
	}
	o, err := c.sb.RunProgram(ctx, l, []byte(Program(lang, prompt, completion, test, entryPoint)), nil)
	if err != nil {
		return Verdict{}, fmt.Errorf("mbxp: %s: %w", lang, err)
	}
	v := Verdict{Passed: o.Passed(), Outcome: o}
	switch {
	case o.Run != nil:
		v.Message = string(o.Run.Stderr)
		if o.Run.Verdict != sandbox.OK && o.Run.Verdict != sandbox.Exited {
			v.Message = strings.TrimSpace(v.Message + "\n" + o.Run.String())
		}
	case o.Compile != nil:
		v.Message = string(o.Compile.Stderr)
		if o.Compile.Verdict != sandbox.OK && o.Compile.Verdict != sandbox.Exited {
			v.Message = strings.TrimSpace(v.Message + "\ncompiler " + o.Compile.String())
		}
	}
	return v, nil
}
