package latextext

import (
	_ "embed"
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// tablesJSON holds pylatexenc 2.10's default macro, environment and
// specials definitions (MIT licensed, see LICENSE.pylatexenc), written by
// testdata/make_tables.py: for each name, latexwalker's argument
// specification and latex2text's replacement.
//
//go:embed tables.json
var tablesJSON []byte

// entry is one macro's or environment's definitions.
type entry struct {
	// Args is the argument specification ('{' mandatory, '[' optional,
	// '*' star), empty for none; Verbatim names a verbatim parser.
	Args       string `json:"args"`
	OptNoSpace bool   `json:"optnospace"`
	Verbatim   string `json:"verbatim"`
	Math       bool   `json:"math"`
	// Repl is latex2text's replacement text (with %s / %(n)s
	// placeholders), Func a replacement function with its argument Arg,
	// Discard whether the node is dropped. hasText says latex2text knows
	// the name at all.
	Repl    *string `json:"repl"`
	Func    string  `json:"func"`
	Arg     string  `json:"arg"`
	Discard *bool   `json:"discard"`
}

type tables struct {
	Version      string            `json:"pylatexenc"`
	Macros       map[string]*entry `json:"macros"`
	Environments map[string]*entry `json:"environments"`
	Specials     map[string]*entry `json:"specials"`
	macros       map[string]*entry
	envs         map[string]*entry
	// specials sorted longest first (test_for_specials keeps the longest
	// match).
	specialChars []string
}

var (
	loadOnce sync.Once
	loaded   *tables
	loadErr  error
)

func getTables() (*tables, error) {
	loadOnce.Do(func() {
		var t tables
		if err := json.Unmarshal(tablesJSON, &t); err != nil {
			loadErr = err
			return
		}
		t.macros, t.envs = t.Macros, t.Environments
		for k := range t.Specials {
			t.specialChars = append(t.specialChars, k)
		}
		sort.Slice(t.specialChars, func(i, j int) bool {
			a, b := t.specialChars[i], t.specialChars[j]
			if len([]rune(a)) != len([]rune(b)) {
				return len([]rune(a)) > len([]rune(b))
			}
			return a < b
		})
		loaded = &t
	})
	return loaded, loadErr
}

func (t *tables) matchSpecials(s []rune, pos int) string {
	rest := string(s[pos:min(len(s), pos+4)])
	for _, c := range t.specialChars {
		if strings.HasPrefix(rest, c) {
			return c
		}
	}
	return ""
}

// argSpec is a parse-time argument specification.
type argSpec struct {
	args       string
	optNoSpace bool
	verbatim   string
}

// spec returns e's argument specification (none for an unknown name).
func (e *entry) spec() *argSpec {
	if e == nil {
		return &argSpec{}
	}
	return &argSpec{args: e.Args, optNoSpace: e.OptNoSpace, verbatim: e.Verbatim}
}

// known reports whether latex2text has a definition (else the default
// for unknown macros, discard, or environments, keep the body).
func (e *entry) known() bool {
	return e != nil && (e.Repl != nil || e.Func != "" || e.Discard != nil)
}
