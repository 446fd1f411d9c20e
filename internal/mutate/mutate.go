// Package mutate finds single-operator mutations in Go source: the mutants
// that `make mutate` (cmd/mutate) applies one at a time to see whether a
// package's tests notice. Each mutant is a byte-range edit of one file, so the
// rest of the file (and every line number) stays as written.
//
// The operators are the ones a reviewer expects a test suite to catch:
//
//	cmp-flip       a comparison negated: == and !=, < and >=, > and <=
//	boundary       a bound shifted by one: < and <=, > and >=
//	cond-drop      one operand of && or || removed (the other kept)
//	branch-skip    an if whose body is not an error return never taken
//	err-drop       an if whose body returns an error never taken (the
//	               check vanishes and the code goes on)
//	const          an integer literal k becomes k+1; a float f becomes 2f
//	               (0 becomes 1); not in values returned beside a non-nil
//	               error, which no caller reads; octal literals (file
//	               modes) are listed but not judged (see SkipFileMode),
//	               as are mutants of make's capacity (SkipCapacity)
//	arith          + and -, * and / swapped
//
// gremlins (github.com/go-gremlins/gremlins), the maintained Go mutation
// tool, has the comparison, boundary and arithmetic operators but neither
// removed conditions nor dropped error returns nor changed constants, which is
// where most survivors of the first review were; hence this small package.
package mutate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// Operator names, as they appear in reports and in equivalent-mutant keys.
const (
	CmpFlip    = "cmp-flip"
	Boundary   = "boundary"
	CondDrop   = "cond-drop"
	BranchSkip = "branch-skip"
	ErrDrop    = "err-drop"
	Const      = "const"
	Arith      = "arith"
)

// Mutant is one edit of one file: the bytes [Start, End) become New.
type Mutant struct {
	File  string // path as given to Find
	Line  int    // line of Start
	Func  string // enclosing function ("Recv.Name", "Name", or "-" at package level)
	Op    string // one of the operator names above
	Old   string // the replaced text (shortened for display by Key)
	New   string // the replacement
	Start int    // byte offset in the file
	End   int    // byte offset in the file
	Nth   int    // 1-based index among mutants with the same File, Func, Op, Old, New
	// Skip, when set, says why the mutant is listed but not judged (it
	// stays in the list so that a seeded sample of the list is stable).
	Skip string
}

// SkipFileMode is the Skip of a changed octal literal: a file mode, whose
// effect depends on the umask of whoever runs the program, so that a test
// of it is either fragile or a copy of the literal.
const SkipFileMode = "file mode (octal literal): the mode a file gets depends on the umask"

// SkipCapacity is the Skip of a mutant in the capacity argument of make:
// it changes only how much is allocated up front, which append makes up.
const SkipCapacity = "capacity of make: only the allocation changes"

// Key names the mutant independently of line numbers, so that a note about
// it (an equivalent mutant's argument) survives edits elsewhere in the file.
func (m Mutant) Key() string {
	return fmt.Sprintf("%s:%s:%s:%s→%s#%d", m.File, m.Func, m.Op, short(m.Old), short(m.New), m.Nth)
}

// short keeps a one-line, at most 40-byte rendering of s.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// Apply returns src with m's edit made.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	if m.Start < 0 || m.End > len(src) || m.Start > m.End {
		return nil, fmt.Errorf("mutate: %s: edit [%d,%d) outside a %d-byte file", m.File, m.Start, m.End, len(src))
	}
	if string(src[m.Start:m.End]) != m.Old {
		return nil, fmt.Errorf("mutate: %s:%d: file changed since the mutants were found (want %q)", m.File, m.Line, short(m.Old))
	}
	out := make([]byte, 0, len(src)+len(m.New))
	out = append(out, src[:m.Start]...)
	out = append(out, m.New...)
	return append(out, src[m.End:]...), nil
}

// Find parses one Go file and returns every mutant in it, in source order.
func Find(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	tf := fset.File(f.Pos())
	v := &finder{name: name, src: src, tf: tf, seen: map[string]int{}}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			v.fn = funcName(d)
			v.results = []*ast.FieldList{d.Type.Results}
			ast.Inspect(d.Body, v.visit)
		case *ast.GenDecl:
			v.fn = "-"
			v.results = nil
			ast.Inspect(d, v.visit)
		}
	}
	return v.out, nil
}

// funcName is "Recv.Name" for a method, "Name" for a function.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return d.Name.Name
	}
}

type finder struct {
	name    string
	src     []byte
	tf      *token.File
	fn      string
	results []*ast.FieldList // result lists of the enclosing function literals, innermost last
	seen    map[string]int
	out     []Mutant
	skip    string // Skip given to the mutants found now
}

func (v *finder) off(p token.Pos) int { return v.tf.Offset(p) }

func (v *finder) add(op string, start, end token.Pos, repl string) {
	s, e := v.off(start), v.off(end)
	m := Mutant{File: v.name, Line: v.tf.Line(start), Func: v.fn, Op: op,
		Old: string(v.src[s:e]), New: repl, Start: s, End: e, Skip: v.skip}
	k := m.File + "\x00" + m.Func + "\x00" + op + "\x00" + short(m.Old) + "\x00" + short(repl)
	v.seen[k]++
	m.Nth = v.seen[k]
	v.out = append(v.out, m)
}

var (
	flip  = map[token.Token]string{token.EQL: "!=", token.NEQ: "==", token.LSS: ">=", token.GEQ: "<", token.GTR: "<=", token.LEQ: ">"}
	shift = map[token.Token]string{token.LSS: "<=", token.LEQ: "<", token.GTR: ">=", token.GEQ: ">"}
	arith = map[token.Token]string{token.ADD: "-", token.SUB: "+", token.MUL: "/", token.QUO: "*"}
)

func (v *finder) visit(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.FuncLit:
		// A closure's returns are judged against its own results.
		v.results = append(v.results, x.Type.Results)
		ast.Inspect(x.Body, v.visit)
		v.results = v.results[:len(v.results)-1]
		return false
	case *ast.BinaryExpr:
		v.binary(x)
	case *ast.IfStmt:
		v.ifStmt(x)
	case *ast.BasicLit:
		v.literal(x)
	case *ast.Field:
		// Struct tags and array lengths in types are not behaviour worth a mutant.
		if x.Tag != nil {
			ast.Inspect(x.Type, v.visit)
			return false
		}
	case *ast.ArrayType:
		if x.Len != nil {
			ast.Inspect(x.Elt, v.visit)
			return false
		}
	case *ast.ImportSpec:
		return false
	case *ast.ReturnStmt:
		// Values returned beside a non-nil error are never read (Go's
		// convention); only the error itself is mutated.
		if v.errorReturn(x) {
			ast.Inspect(x.Results[len(x.Results)-1], v.visit)
			return false
		}
	case *ast.CallExpr:
		// Arguments of error constructors and loggers are messages, not behaviour.
		if isMessageCall(x) {
			return false
		}
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "make" && len(x.Args) == 3 && v.skip == "" {
			ast.Inspect(x.Args[1], v.visit)
			v.skip = SkipCapacity
			ast.Inspect(x.Args[2], v.visit)
			v.skip = ""
			return false
		}
	}
	return true
}

func (v *finder) binary(x *ast.BinaryExpr) {
	// A comparison with nil is left alone: flipping `err != nil` fails every
	// test at once and would only flatter the kill rate (err-drop covers the
	// checks themselves).
	if r, ok := flip[x.Op]; ok && !isNil(x.X) && !isNil(x.Y) {
		v.add(CmpFlip, x.OpPos, x.OpPos+token.Pos(len(x.Op.String())), r)
	}
	if r, ok := shift[x.Op]; ok {
		v.add(Boundary, x.OpPos, x.OpPos+token.Pos(len(x.Op.String())), r)
	}
	if x.Op == token.LAND || x.Op == token.LOR {
		s, e := v.off(x.X.Pos()), v.off(x.X.End())
		v.add(CondDrop, x.Pos(), x.End(), "("+string(v.src[s:e])+")")
		s, e = v.off(x.Y.Pos()), v.off(x.Y.End())
		v.add(CondDrop, x.Pos(), x.End(), "("+string(v.src[s:e])+")")
	}
	if r, ok := arith[x.Op]; ok && !isString(x.X) && !isString(x.Y) {
		v.add(Arith, x.OpPos, x.OpPos+1, r)
	}
}

func (v *finder) ifStmt(x *ast.IfStmt) {
	s, e := v.off(x.Cond.Pos()), v.off(x.Cond.End())
	repl := "(" + string(v.src[s:e]) + ") && false"
	if v.returnsError(x.Body) {
		v.add(ErrDrop, x.Cond.Pos(), x.Cond.End(), repl)
		return
	}
	v.add(BranchSkip, x.Cond.Pos(), x.Cond.End(), repl)
}

// returnsError reports whether body ends in a return whose last value is
// not nil, in a function whose last result is of type error.
func (v *finder) returnsError(body *ast.BlockStmt) bool {
	if len(v.results) == 0 || len(body.List) == 0 {
		return false
	}
	res := v.results[len(v.results)-1]
	if res == nil || len(res.List) == 0 {
		return false
	}
	last := res.List[len(res.List)-1]
	if id, ok := last.Type.(*ast.Ident); !ok || id.Name != "error" {
		return false
	}
	ret, ok := body.List[len(body.List)-1].(*ast.ReturnStmt)
	if !ok || len(ret.Results) == 0 {
		return ok // a bare return with named results
	}
	return !isNil(ret.Results[len(ret.Results)-1])
}

// errorReturn reports a return of several values whose last is a non-nil
// error, in a function whose last result is of type error.
func (v *finder) errorReturn(ret *ast.ReturnStmt) bool {
	if len(ret.Results) < 2 || isNil(ret.Results[len(ret.Results)-1]) || len(v.results) == 0 {
		return false
	}
	res := v.results[len(v.results)-1]
	if res == nil || len(res.List) == 0 {
		return false
	}
	id, ok := res.List[len(res.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

func (v *finder) literal(x *ast.BasicLit) {
	switch x.Kind {
	case token.INT:
		n, err := strconv.ParseInt(x.Value, 0, 64)
		if err != nil {
			return
		}
		v.add(Const, x.Pos(), x.End(), strconv.FormatInt(n+1, 10))
		if isOctal(x.Value) {
			v.out[len(v.out)-1].Skip = SkipFileMode
		}
	case token.FLOAT:
		f, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return
		}
		r := "1.0"
		if f != 0 {
			r = strconv.FormatFloat(2*f, 'g', -1, 64)
			if !strings.ContainsAny(r, ".eE") {
				r += ".0"
			}
		}
		v.add(Const, x.Pos(), x.End(), r)
	}
}

// isOctal reports an octal literal: 0o644, 0644 (not 0 itself).
func isOctal(lit string) bool {
	return len(lit) > 1 && lit[0] == '0' && (lit[1] == 'o' || lit[1] == 'O' || lit[1] >= '0' && lit[1] <= '7')
}

func isNil(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "nil"
}

func isString(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.BasicLit:
			return x.Kind == token.STRING
		case *ast.ParenExpr:
			e = x.X
		case *ast.BinaryExpr:
			return isString(x.X) || isString(x.Y)
		default:
			return false
		}
	}
}

// isMessageCall reports calls that build messages: fmt.Errorf, errors.New,
// fmt.Sprintf and friends, log.*, t.Logf-style methods.
func isMessageCall(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name {
	case "errors":
		return sel.Sel.Name == "New"
	case "fmt":
		return sel.Sel.Name == "Errorf"
	case "log", "slog":
		return true
	}
	return false
}
