package latextext

import (
	"strings"
	"unicode"

	"github.com/mlperf-go/inference/internal/pystr"
)

// The parser is pylatexenc 2.10's LatexWalker in tolerant mode
// (pylatexenc/latexwalker/__init__.py: get_token, get_latex_expression,
// get_latex_braced_group, get_latex_environment, get_latex_nodes, and
// macrospec's MacroStandardArgsParser), over runes as Python indexes code
// points. Parse errors are recovered from where it recovers; the few
// exceptions it lets through (an IndexError in \verb at the end of the
// input) are errors here.

type nodeKind int

const (
	charsNode nodeKind = iota
	groupNode
	commentNode
	macroNode
	envNode
	specialsNode
	mathNode
)

// node is a LatexNode.
type node struct {
	kind nodeKind
	// chars (charsNode); comment text (commentNode); macro, environment
	// or specials name.
	text      string
	postSpace string // macro_post_space, comment_post_space
	nodes     []*node
	// argd is nil where the arguments were not parsed (nodeargd None);
	// args holds argnlist, nil entries for absent optional arguments.
	argd    bool
	args    []*node
	argspec string
	display bool // math node: display type
}

// legacy returns (nodeoptarg, nodeargs) as ParsedMacroArgs'
// _get_legacy_attribs computes them.
func (n *node) legacy() (*node, []*node) {
	if !n.argd {
		return nil, nil
	}
	spec := n.argspec
	skip := 0
	for strings.HasPrefix(spec, "*") {
		spec = spec[1:]
		skip++
	}
	if strings.HasPrefix(spec, "[") && strings.Trim(spec[1:], "{") == "" {
		return n.args[skip], n.args[skip+1:]
	}
	return nil, n.args
}

type tokKind int

const (
	tChar tokKind = iota
	tMacro
	tComment
	tBraceOpen
	tBraceClose
	tMathInline
	tMathDisplay
	tBeginEnv
	tEndEnv
	tSpecials
)

type token struct {
	kind      tokKind
	arg       string
	pos, len  int
	preSpace  string
	postSpace string
}

// errEOS is LatexWalkerEndOfStream, with the white space read before it.
type errEOS struct{ finalSpace string }

func (e *errEOS) Error() string { return "latextext: end of stream" }

// errParse is LatexWalkerParseError.
type errParse struct{ msg string }

func (e *errParse) Error() string { return "latextext: " + e.msg }

// errFatal is an exception pylatexenc does not catch; latex_to_text raises.
type errFatal struct{ msg string }

func (e *errFatal) Error() string { return "latextext: " + e.msg }

type walker struct {
	s []rune
	t *tables
	// inDollar: parsing the inside of $...$, where $$ is two $ (the
	// parsing state's math mode, less the text-mode arguments of \text
	// and the like, which pylatexenc also tracks; the MATH grader removes
	// every $ before it converts, so this never matters there).
	inDollar bool
}

// envName matches ^\s*\{([\w* ._-]+)\} at the start of s (Python's
// classes): the environment name and the runes read.
func envName(s []rune) (string, int, bool) {
	i := 0
	for i < len(s) && pystr.IsSpace(s[i]) {
		i++
	}
	if i >= len(s) || s[i] != '{' {
		return "", 0, false
	}
	i++
	start := i
	for i < len(s) && (unicode.IsLetter(s[i]) || unicode.IsNumber(s[i]) || strings.ContainsRune("_* .-", s[i])) {
		i++
	}
	if i == start || i >= len(s) || s[i] != '}' {
		return "", 0, false
	}
	return string(s[start:i]), i + 1, true
}

// getToken is LatexWalker.get_token; braces are the extra brace pairs.
func (w *walker) getToken(pos int, braces [][2]rune, environments bool) (token, error) {
	s := w.s
	space := []rune{}
	for pos < len(s) && pystr.IsSpace(s[pos]) {
		space = append(space, s[pos])
		pos++
		if n := len(space); n >= 2 && space[n-1] == '\n' && space[n-2] == '\n' {
			return token{kind: tChar, arg: "\n\n", pos: pos - 2, len: 2, preSpace: string(space[:n-2])}, nil
		}
	}
	if pos >= len(s) {
		return token{}, &errEOS{finalSpace: string(space)}
	}
	pre := string(space)
	if s[pos] == '\\' {
		if pos+1 >= len(s) {
			return token{}, &errEOS{}
		}
		macro := []rune{s[pos+1]}
		alpha := false
		i := 2
		if pystr.IsAlpha(s[pos+1]) {
			alpha = true
			for pos+i < len(s) && pystr.IsAlpha(s[pos+i]) {
				macro = append(macro, s[pos+i])
				i++
			}
		}
		m := string(macro)
		switch m {
		case "[", "]":
			return token{kind: tMathDisplay, arg: `\` + m, pos: pos, len: i, preSpace: pre}, nil
		case "(", ")":
			return token{kind: tMathInline, arg: `\` + m, pos: pos, len: i, preSpace: pre}, nil
		}
		if environments && (m == "begin" || m == "end") {
			name, n, ok := envName(s[pos+i:])
			if !ok {
				// tolerant: a placeholder char token
				return token{kind: tChar, arg: `\` + m, pos: pos, len: i, preSpace: pre}, nil
			}
			kind := tBeginEnv
			if m == "end" {
				kind = tEndEnv
			}
			return token{kind: kind, arg: name, pos: pos, len: i + n, preSpace: pre}, nil
		}
		var post []rune
		if alpha {
			for pos+i < len(s) && pystr.IsSpace(s[pos+i]) {
				post = append(post, s[pos+i])
				i++
				if n := len(post); n >= 2 && post[n-1] == '\n' && post[n-2] == '\n' {
					post = post[:n-2]
					i -= 2
					break
				}
			}
		}
		return token{kind: tMacro, arg: m, pos: pos, len: i, preSpace: pre, postSpace: string(post)}, nil
	}
	if s[pos] == '%' {
		return w.commentToken(pos, pre), nil
	}
	if s[pos] == '{' {
		return token{kind: tBraceOpen, arg: "{", pos: pos, len: 1, preSpace: pre}, nil
	}
	if s[pos] == '}' {
		return token{kind: tBraceClose, arg: "}", pos: pos, len: 1, preSpace: pre}, nil
	}
	for _, b := range braces {
		if s[pos] == b[0] {
			return token{kind: tBraceOpen, arg: string(b[0]), pos: pos, len: 1, preSpace: pre}, nil
		}
	}
	for _, b := range braces {
		if s[pos] == b[1] {
			return token{kind: tBraceClose, arg: string(b[1]), pos: pos, len: 1, preSpace: pre}, nil
		}
	}
	if pos+1 < len(s) && s[pos] == '$' && s[pos+1] == '$' && !w.inDollar {
		return token{kind: tMathDisplay, arg: "$$", pos: pos, len: 2, preSpace: pre}, nil
	}
	if s[pos] == '$' {
		return token{kind: tMathInline, arg: "$", pos: pos, len: 1, preSpace: pre}, nil
	}
	if sp := w.t.matchSpecials(s, pos); sp != "" {
		return token{kind: tSpecials, arg: sp, pos: pos, len: len([]rune(sp)), preSpace: pre}, nil
	}
	return token{kind: tChar, arg: string(s[pos]), pos: pos, len: 1, preSpace: pre}, nil
}

// commentToken reads a % comment: up to the line end, its post space the
// new line and the white space after it (none where a blank line
// follows).
func (w *walker) commentToken(pos int, pre string) token {
	s := w.s
	// (\n|\r|\n\r)(?P<extraspace>\s*)
	nl := -1
	for j := pos; j < len(s); j++ {
		if s[j] == '\n' || s[j] == '\r' {
			nl = j
			break
		}
	}
	if nl < 0 {
		return token{kind: tComment, arg: string(s[pos+1:]), pos: pos, len: len(s) - pos, preSpace: pre}
	}
	mEnd := nl + 1
	extraStart := mEnd
	j := extraStart
	for j < len(s) && pystr.IsSpace(s[j]) {
		j++
	}
	extra := s[extraStart:j]
	if len(extra) > 0 && (extra[0] == '\n' || extra[0] == '\r') {
		return token{kind: tComment, arg: string(s[pos+1 : nl]), pos: pos, len: nl - pos, preSpace: pre}
	}
	return token{kind: tComment, arg: string(s[pos+1 : nl]), pos: pos, len: j - pos, preSpace: pre, postSpace: string(s[nl:j])}
}

// expression is get_latex_expression: one token as TeX reads a macro
// argument.
func (w *walker) expression(pos int) (*node, int, int, error) {
	tok, err := w.getToken(pos, nil, false)
	if err != nil {
		return nil, 0, 0, err
	}
	switch tok.kind {
	case tMacro:
		if tok.arg == "end" {
			return &node{kind: charsNode}, tok.pos, 0, nil
		}
		return &node{kind: macroNode, text: tok.arg, postSpace: tok.postSpace}, tok.pos, tok.len, nil
	case tSpecials:
		return &node{kind: specialsNode, text: tok.arg}, tok.pos, tok.len, nil
	case tComment:
		return w.expression(tok.pos + tok.len)
	case tBraceOpen:
		return w.bracedGroup(tok.pos, '{', '}')
	case tBraceClose:
		return &node{kind: charsNode}, tok.pos, 0, nil
	case tChar:
		return &node{kind: charsNode, text: tok.arg}, tok.pos, tok.len, nil
	case tMathInline, tMathDisplay:
		if strings.HasPrefix(tok.arg, `\`) {
			return &node{kind: macroNode, text: tok.arg}, tok.pos, tok.len, nil
		}
		return &node{kind: charsNode, text: tok.arg}, tok.pos, tok.len, nil
	}
	return nil, 0, 0, &errParse{"unknown token"}
}

// optionalArg is get_latex_maybe_optional_arg; nil without one.
func (w *walker) optionalArg(pos int) (*node, int, int, error) {
	tok, err := w.getToken(pos, [][2]rune{{'[', ']'}}, false)
	if err != nil {
		if _, ok := err.(*errEOS); ok {
			return nil, 0, 0, nil
		}
		return nil, 0, 0, err
	}
	if tok.kind == tBraceOpen && tok.arg == "[" {
		return w.bracedGroup(pos, '[', ']')
	}
	return nil, 0, 0, nil
}

// bracedGroup is get_latex_braced_group.
func (w *walker) bracedGroup(pos int, open, close rune) (*node, int, int, error) {
	var braces [][2]rune
	if open != '{' {
		braces = [][2]rune{{open, close}}
	}
	first, err := w.getToken(pos, braces, true)
	if err != nil {
		return nil, 0, 0, err
	}
	if first.kind != tBraceOpen || first.arg != string(open) {
		return nil, 0, 0, &errParse{"not an opening brace"}
	}
	nodes, npos, nlen, err := w.nodes(first.pos+first.len, stop{brace: close, open: open})
	if err != nil {
		return nil, 0, 0, err
	}
	return &node{kind: groupNode, nodes: nodes}, first.pos, npos + nlen - first.pos, nil
}

// parseArgs is MacroStandardArgsParser.parse_args (or the verbatim
// parser) for the spec sp.
func (w *walker) parseArgs(sp *argSpec, pos int) ([]*node, int, int, error) {
	if sp.verbatim != "" {
		return w.verbatimArgs(sp.verbatim, pos)
	}
	var args []*node
	p := pos
	for _, a := range sp.args {
		switch a {
		case '{':
			n, np, nl, err := w.expression(p)
			if err != nil {
				return nil, 0, 0, err
			}
			p = np + nl
			args = append(args, n)
		case '[':
			if sp.optNoSpace && p < len(w.s) && pystr.IsSpace(w.s[p]) {
				args = append(args, nil)
				continue
			}
			n, np, nl, err := w.optionalArg(p)
			if err != nil {
				return nil, 0, 0, err
			}
			if n == nil {
				args = append(args, nil)
				continue
			}
			p = np + nl
			args = append(args, n)
		case '*':
			tok, err := w.getToken(p, nil, true)
			if err != nil {
				return nil, 0, 0, err
			}
			if tok.kind == tChar && strings.HasPrefix(tok.arg, "*") {
				args = append(args, &node{kind: charsNode, text: "*"})
				p = tok.pos + 1
			} else {
				args = append(args, nil)
			}
		}
	}
	return args, pos, p - pos, nil
}

// verbatimArgs is VerbatimArgsParser.parse_args.
func (w *walker) verbatimArgs(kind string, pos int) ([]*node, int, int, error) {
	s := w.s
	if kind == "verbatim-environment" {
		end := strings.Index(string(s[pos:]), `\end{verbatim}`)
		if end < 0 {
			return nil, 0, 0, &errParse{`cannot find matching \end{verbatim}`}
		}
		n := len([]rune(string(s[pos:])[:end]))
		return []*node{{kind: charsNode, text: string(s[pos : pos+n])}}, pos, n, nil
	}
	for {
		if pos >= len(s) {
			return nil, 0, 0, &errFatal{`IndexError in \verb`}
		}
		if !pystr.IsSpace(s[pos]) {
			break
		}
		pos++
		if pos >= len(s) {
			return nil, 0, 0, &errParse{`missing argument to \verb`}
		}
	}
	delim := s[pos]
	begin := pos + 1
	end := -1
	for j := begin; j < len(s); j++ {
		if s[j] == delim {
			end = j
			break
		}
	}
	if end < 0 {
		return nil, 0, 0, &errParse{`end of stream in \verb`}
	}
	return []*node{{kind: charsNode, text: string(s[begin:end])}}, pos, end + 1 - pos, nil
}

// environment is get_latex_environment.
func (w *walker) environment(pos int, name string) (*node, int, int, error) {
	start := pos
	first, err := w.getToken(pos, nil, true)
	if err != nil {
		return nil, 0, 0, err
	}
	if first.kind != tBeginEnv || first.arg != name {
		return nil, 0, 0, &errParse{"expected \\begin"}
	}
	pos = first.pos + first.len
	sp := w.t.envs[name].spec()
	n := &node{kind: envNode, text: name, argspec: sp.args}
	args, apos, alen, err := w.parseArgs(sp, pos)
	switch err.(type) {
	case nil:
		n.argd, n.args = true, args
		pos = apos + alen
	case *errEOS, *errParse:
		// tolerant: no arguments
	default:
		return nil, 0, 0, err
	}
	old := w.inDollar
	if e := w.t.envs[name]; e != nil && e.Math {
		w.inDollar = false
	}
	nodes, npos, nlen, err := w.nodes(pos, stop{env: name})
	w.inDollar = old
	if err != nil {
		return nil, 0, 0, err
	}
	n.nodes = nodes
	return n, start, npos + nlen - start, nil
}

// stop says where nodes stops: at a closing brace, the end of an
// environment or a closing math delimiter.
type stop struct {
	brace, open rune
	env         string
	math        string
}

// nodes is get_latex_nodes in tolerant mode.
func (w *walker) nodes(pos int, st stop) ([]*node, int, int, error) {
	var braces [][2]rune
	if st.brace != 0 && st.brace != '}' {
		braces = [][2]rune{{st.open, st.brace}}
	}
	orig := pos
	var list []*node
	var last []rune
	lastPos := -1
	pushLast := func(p int, chars string) {
		last = append(last, []rune(chars)...)
		if lastPos < 0 {
			lastPos = p
		}
	}
	flush := func() string {
		c := string(last)
		last, lastPos = nil, -1
		return c
	}
	p := pos
	// read returns (end, eos) where end says to stop reading.
	read := func() (bool, *errEOS, error) {
		tok, err := w.getToken(p, braces, true)
		if err != nil {
			if e, ok := err.(*errEOS); ok {
				return true, e, nil
			}
			return false, nil, err
		}
		p = tok.pos + tok.len
		if tok.kind == tChar {
			pushLast(tok.pos-len([]rune(tok.preSpace)), tok.preSpace+tok.arg)
			return false, nil, nil
		}
		if len(last) > 0 {
			c := flush()
			list = append(list, &node{kind: charsNode, text: c + tok.preSpace})
		} else if tok.preSpace != "" {
			list = append(list, &node{kind: charsNode, text: tok.preSpace})
		}
		switch tok.kind {
		case tBraceClose:
			if tok.arg != string(st.brace) {
				return false, nil, &errParse{"mismatching closing brace"}
			}
			return true, nil, nil
		case tEndEnv:
			if st.env == "" || tok.arg != st.env {
				return false, nil, &errParse{"unexpected closing environment"}
			}
			return true, nil, nil
		case tMathInline, tMathDisplay:
			if st.math != "" {
				if tok.arg == st.math {
					return true, nil, nil
				}
				if tok.arg == `\)` || tok.arg == `\]` {
					return false, nil, &errParse{"mismatching closing math mode"}
				}
			} else if tok.arg == `\)` || tok.arg == `\]` {
				return false, nil, &errParse{"unexpected closing math mode"}
			}
			closing := map[string]string{`\(`: `\)`, `\[`: `\]`}[tok.arg]
			if closing == "" {
				closing = tok.arg
			}
			old := w.inDollar
			w.inDollar = tok.arg == "$"
			inner, mpos, mlen, err := w.nodes(p, stop{math: closing})
			w.inDollar = old
			if err != nil {
				return false, nil, err
			}
			p = mpos + mlen
			list = append(list, &node{kind: mathNode, nodes: inner, display: !(tok.arg == `\(` || tok.arg == "$")})
			return false, nil, nil
		case tComment:
			list = append(list, &node{kind: commentNode, text: tok.arg, postSpace: tok.postSpace})
			return false, nil, nil
		case tBraceOpen:
			close := '}'
			if tok.arg != "{" {
				close = st.brace
			}
			g, bpos, blen, err := w.bracedGroup(tok.pos, []rune(tok.arg)[0], close)
			if err != nil {
				return false, nil, err
			}
			p = bpos + blen
			list = append(list, g)
			return false, nil, nil
		case tBeginEnv:
			e, epos, elen, err := w.environment(tok.pos, tok.arg)
			if err != nil {
				return false, nil, err
			}
			p = epos + elen
			list = append(list, e)
			return false, nil, nil
		case tMacro:
			sp := w.t.macros[tok.arg].spec()
			n := &node{kind: macroNode, text: tok.arg, postSpace: tok.postSpace, argspec: sp.args}
			args, apos, alen, err := w.parseArgs(sp, tok.pos+tok.len)
			switch err.(type) {
			case nil:
				n.argd, n.args = true, args
				p = apos + alen
			case *errEOS, *errParse:
				p = tok.pos + tok.len
			default:
				return false, nil, err
			}
			list = append(list, n)
			return false, nil, nil
		case tSpecials:
			n := &node{kind: specialsNode, text: tok.arg}
			list = append(list, n)
			return false, nil, nil
		}
		return false, nil, &errParse{"unknown token"}
	}
	for {
		end, eos, err := read()
		if err != nil {
			if _, ok := err.(*errParse); ok {
				continue // tolerant parsing: report and go on
			}
			return nil, 0, 0, err
		}
		if !end {
			continue
		}
		if eos != nil {
			pushLast(p, eos.finalSpace)
			p += len([]rune(eos.finalSpace))
		}
		if len(last) > 0 {
			list = append(list, &node{kind: charsNode, text: flush()})
		}
		return list, orig, p - orig, nil
	}
}
