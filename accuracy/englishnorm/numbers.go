package englishnorm

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
)

// ErrUnexpected reports an input on which the Python normaliser raises
// (an AssertionError or ValueError of EnglishNumberNormalizer).
var ErrUnexpected = errors.New("englishnorm: the Python normaliser raises on this input")

// value is process_words' value: None, a Python int or a str.
type value struct {
	kind int // noValue, intValue, strValue
	i    *big.Int
	s    string
}

const (
	noValue = iota
	intValue
	strValue
)

func intV(i *big.Int) value  { return value{kind: intValue, i: i} }
func intN(n int64) value     { return intV(big.NewInt(n)) }
func strV(s string) value    { return value{kind: strValue, s: s} }
func (v value) isNone() bool { return v.kind == noValue }
func (v value) isStr() bool  { return v.kind == strValue }
func (v value) String() string { // Python str(value)
	if v.kind == intValue {
		return v.i.String()
	}
	return v.s
}

// orEmpty is str(value or ""): None, 0 and "" are falsy.
func (v value) orEmpty() string {
	switch v.kind {
	case intValue:
		if v.i.Sign() == 0 {
			return ""
		}
		return v.i.String()
	case strValue:
		return v.s
	}
	return ""
}

func (v value) mod(n int64) int64 {
	return new(big.Int).Mod(v.i, big.NewInt(n)).Int64()
}

func (v value) plus(n int64) value { return intV(new(big.Int).Add(v.i, big.NewInt(n))) }

type suffixed struct {
	value  int64
	suffix string
}

// numberNormalizer is EnglishNumberNormalizer's tables.
type numberNormalizer struct {
	zeros               map[string]bool
	ones                map[string]int64
	onesSuffixed        map[string]suffixed
	tens                map[string]int64
	tensSuffixed        map[string]suffixed
	multipliers         map[string]*big.Int
	multipliersSuffixed map[string]struct {
		m      *big.Int
		suffix string
	}
	decimals           map[string]bool
	precedingPrefixers map[string]string
	followingPrefixers map[string]string
	prefixes           map[rune]bool
	specials           map[string]bool
	words              map[string]bool
}

func newNumberNormalizer() *numberNormalizer {
	n := &numberNormalizer{
		zeros:        map[string]bool{"o": true, "oh": true, "zero": true},
		ones:         map[string]int64{},
		onesSuffixed: map[string]suffixed{},
		tens: map[string]int64{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
			"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90},
		tensSuffixed: map[string]suffixed{},
		multipliers:  map[string]*big.Int{},
		multipliersSuffixed: map[string]struct {
			m      *big.Int
			suffix string
		}{},
		decimals:           map[string]bool{},
		precedingPrefixers: map[string]string{"minus": "-", "negative": "-", "plus": "+", "positive": "+"},
		followingPrefixers: map[string]string{"pound": "£", "pounds": "£", "euro": "€", "euros": "€",
			"dollar": "$", "dollars": "$", "cent": "¢", "cents": "¢"},
		prefixes: map[rune]bool{},
		specials: map[string]bool{"and": true, "double": true, "triple": true, "point": true},
		words:    map[string]bool{},
	}
	for i, name := range strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen") {
		n.ones[name] = int64(i + 1)
	}
	for name, v := range n.ones {
		plural := name + "s"
		if name == "six" {
			plural = "sixes"
		}
		n.onesSuffixed[plural] = suffixed{v, "s"}
	}
	ordinals := map[string]suffixed{"zeroth": {0, "th"}, "first": {1, "st"}, "second": {2, "nd"},
		"third": {3, "rd"}, "fifth": {5, "th"}, "twelfth": {12, "th"}}
	for name, v := range n.ones {
		if v > 3 && v != 5 && v != 12 {
			if strings.HasSuffix(name, "t") {
				ordinals[name+"h"] = suffixed{v, "th"}
			} else {
				ordinals[name+"th"] = suffixed{v, "th"}
			}
		}
	}
	for k, v := range ordinals { // {**ones_plural, **ones_ordinal}
		n.onesSuffixed[k] = v
	}
	for name, v := range n.tens {
		n.tensSuffixed[strings.ReplaceAll(name, "y", "ies")] = suffixed{v, "s"}
	}
	for name, v := range n.tens {
		n.tensSuffixed[strings.ReplaceAll(name, "y", "ieth")] = suffixed{v, "th"}
	}
	p := big.NewInt(100)
	for _, name := range strings.Fields("hundred thousand million billion trillion quadrillion quintillion sextillion septillion octillion nonillion decillion") {
		n.multipliers[name] = new(big.Int).Set(p)
		if name == "hundred" {
			p.SetInt64(1000)
		} else {
			p.Mul(p, big.NewInt(1000))
		}
	}
	for name, m := range n.multipliers {
		n.multipliersSuffixed[name+"s"] = struct {
			m      *big.Int
			suffix string
		}{m, "s"}
	}
	for name, m := range n.multipliers {
		n.multipliersSuffixed[name+"th"] = struct {
			m      *big.Int
			suffix string
		}{m, "th"}
	}
	for k := range n.ones {
		n.decimals[k] = true
	}
	for k := range n.tens {
		n.decimals[k] = true
	}
	for k := range n.zeros {
		n.decimals[k] = true
	}
	for _, v := range n.precedingPrefixers {
		n.prefixes[[]rune(v)[0]] = true
	}
	for _, v := range n.followingPrefixers {
		n.prefixes[[]rune(v)[0]] = true
	}
	add := func(keys ...string) {
		for _, k := range keys {
			n.words[k] = true
		}
	}
	for _, m := range []map[string]bool{n.zeros, n.specials} {
		for k := range m {
			add(k)
		}
	}
	for k := range n.ones {
		add(k)
	}
	for k := range n.onesSuffixed {
		add(k)
	}
	for k := range n.tens {
		add(k)
	}
	for k := range n.tensSuffixed {
		add(k)
	}
	for k := range n.multipliers {
		add(k)
	}
	for k := range n.multipliersSuffixed {
		add(k)
	}
	for k := range n.precedingPrefixers {
		add(k)
	}
	for k := range n.followingPrefixers {
		add(k)
	}
	add("per", "percent") // suffixers
	return n
}

var (
	reNumeric   = py(`^\d+(\.\d+)?$`)
	reAndAHalf  = py(`\band\s+a\s+half\b`)
	reLetterNum = py(`([a-z])([0-9])`)
	reNumLetter = py(`([0-9])([a-z])`)
	reSuffix    = py(`([0-9])\s+(st|nd|rd|th|s)\b`)
	reCents     = py(`([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b`)
	reZeroCents = py(`[€£$]0.([0-9]{1,2})\b`)
	reOne       = py(`\b1(s?)\b`)
)

func matches(re *regexp2.Regexp, s string) bool {
	ok, err := re.MatchString(s)
	return err == nil && ok
}

// digitValue is the value of a Unicode decimal digit (Nd digits come in
// runs of ten from 0 to 9, the runs starting at multiples of ten from the
// first digit of their block).
func digitValue(r rune) int64 {
	if r >= '0' && r <= '9' {
		return int64(r - '0')
	}
	z := r
	for unicode.Is(unicode.Nd, z-1) {
		z--
	}
	return int64(r-z) % 10
}

// asciiDigits rewrites Unicode decimal digits as ASCII, as Python's int()
// and Fraction() read them.
func asciiDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 0x7f && unicode.Is(unicode.Nd, r) {
			return rune('0' + digitValue(r))
		}
		return r
	}, s)
}

// toFraction is fractions.Fraction(s) for the strings process_words
// passes: decimal digits with at most one point and a digit before or
// after it ("3", "3.", ".5", "1.50"); nil where Python raises ValueError.
func toFraction(s string) *big.Rat {
	s = asciiDigits(s)
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart+frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return nil
	}
	num, _ := new(big.Int).SetString(intPart+frac, 10)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	return new(big.Rat).SetFrac(num, den)
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// processWords is EnglishNumberNormalizer.process_words.
func (n *numberNormalizer) processWords(words []string) ([]string, error) {
	var (
		out    []string
		prefix string // "" is None: prefixes are never empty
		val    value
		skip   bool
	)
	output := func(result string) {
		if prefix != "" {
			result = prefix + result
		}
		val = value{}
		prefix = ""
		out = append(out, result)
	}
	for i, current := range words {
		var prev, next string
		hasPrev, hasNext := i > 0, i+1 < len(words)
		if hasPrev {
			prev = words[i-1]
		}
		if hasNext {
			next = words[i+1]
		}
		if skip {
			skip = false
			continue
		}
		nextIsNumeric := hasNext && matches(reNumeric, next)
		nextInWords := hasNext && n.words[next]
		first, _ := firstRune(current)
		hasPrefix := n.prefixes[first]
		withoutPrefix := current
		if hasPrefix {
			withoutPrefix = current[len(string(first)):]
		}
		prevIn := func(m map[string]int64) bool { _, ok := m[prev]; return hasPrev && ok }
		switch {
		case matches(reNumeric, withoutPrefix):
			f := toFraction(withoutPrefix)
			if f == nil {
				return nil, fmt.Errorf("%w: %q is not a fraction", ErrUnexpected, withoutPrefix)
			}
			if !val.isNone() {
				if val.isStr() && strings.HasSuffix(val.s, ".") {
					val = strV(val.s + current)
					continue
				}
				output(val.String())
			}
			if hasPrefix {
				prefix = string(first)
			}
			if f.IsInt() {
				val = intV(new(big.Int).Set(f.Num()))
			} else {
				val = strV(withoutPrefix)
			}
		case !n.words[current]:
			if !val.isNone() {
				output(val.String())
			}
			output(current)
		case n.zeros[current]:
			val = strV(val.orEmpty() + "0")
		case n.ones[current] != 0:
			ones := n.ones[current]
			switch {
			case val.isNone():
				val = intN(ones)
			case val.isStr() || prevIn(n.ones):
				if prevIn(n.tens) && ones < 10 {
					s := val.String()
					if !strings.HasSuffix(s, "0") {
						return nil, fmt.Errorf("%w: %q before %q", ErrUnexpected, s, current)
					}
					val = strV(s[:len(s)-1] + fmt.Sprint(ones))
				} else {
					val = strV(val.String() + fmt.Sprint(ones))
				}
			case ones < 10:
				if val.mod(10) == 0 {
					val = val.plus(ones)
				} else {
					val = strV(val.String() + fmt.Sprint(ones))
				}
			default:
				if val.mod(100) == 0 {
					val = val.plus(ones)
				} else {
					val = strV(val.String() + fmt.Sprint(ones))
				}
			}
		case isSuffixed(n.onesSuffixed, current):
			ones, suffix := n.onesSuffixed[current].value, n.onesSuffixed[current].suffix
			switch {
			case val.isNone():
				output(fmt.Sprint(ones) + suffix)
			case val.isStr() || prevIn(n.ones):
				if prevIn(n.tens) && ones < 10 {
					s := val.String()
					if !strings.HasSuffix(s, "0") {
						return nil, fmt.Errorf("%w: %q before %q", ErrUnexpected, s, current)
					}
					output(s[:len(s)-1] + fmt.Sprint(ones) + suffix)
				} else {
					output(val.String() + fmt.Sprint(ones) + suffix)
				}
			case ones < 10:
				if val.mod(10) == 0 {
					output(val.plus(ones).String() + suffix)
				} else {
					output(val.String() + fmt.Sprint(ones) + suffix)
				}
			default:
				if val.mod(100) == 0 {
					output(val.plus(ones).String() + suffix)
				} else {
					output(val.String() + fmt.Sprint(ones) + suffix)
				}
			}
			val = value{}
		case n.tens[current] != 0:
			tens := n.tens[current]
			switch {
			case val.isNone():
				val = intN(tens)
			case val.isStr():
				val = strV(val.s + fmt.Sprint(tens))
			case val.mod(100) == 0:
				val = val.plus(tens)
			default:
				val = strV(val.String() + fmt.Sprint(tens))
			}
		case isSuffixed(n.tensSuffixed, current):
			tens, suffix := n.tensSuffixed[current].value, n.tensSuffixed[current].suffix
			switch {
			case val.isNone():
				output(fmt.Sprint(tens) + suffix)
			case val.isStr():
				output(val.s + fmt.Sprint(tens) + suffix)
			case val.mod(100) == 0:
				output(val.plus(tens).String() + suffix)
			default:
				output(val.String() + fmt.Sprint(tens) + suffix)
			}
		case n.multipliers[current] != nil:
			m := n.multipliers[current]
			switch {
			case val.isNone():
				val = intV(new(big.Int).Set(m))
			case val.isStr() || val.i.Sign() == 0:
				f := toFraction(val.String())
				var p *big.Rat
				if f != nil {
					p = new(big.Rat).Mul(f, new(big.Rat).SetInt(m))
				}
				if f != nil && p.IsInt() {
					val = intV(new(big.Int).Set(p.Num()))
				} else {
					output(val.String())
					val = intV(new(big.Int).Set(m))
				}
			default:
				val = intV(scaleResidual(val.i, m))
			}
		case n.multipliersSuffixed[current].m != nil:
			ms := n.multipliersSuffixed[current]
			switch {
			case val.isNone():
				output(ms.m.String() + ms.suffix)
			case val.isStr():
				f := toFraction(val.s)
				var p *big.Rat
				if f != nil {
					p = new(big.Rat).Mul(f, new(big.Rat).SetInt(ms.m))
				}
				if f != nil && p.IsInt() {
					output(p.Num().String() + ms.suffix)
				} else {
					output(val.s)
					output(ms.m.String() + ms.suffix)
				}
			default:
				val = intV(scaleResidual(val.i, ms.m))
				output(val.String() + ms.suffix)
			}
			val = value{}
		case n.precedingPrefixers[current] != "":
			if !val.isNone() {
				output(val.String())
			}
			if nextInWords || nextIsNumeric {
				prefix = n.precedingPrefixers[current]
			} else {
				output(current)
			}
		case n.followingPrefixers[current] != "":
			if !val.isNone() {
				prefix = n.followingPrefixers[current]
				output(val.String())
			} else {
				output(current)
			}
		case current == "per" || current == "percent":
			switch {
			case val.isNone():
				output(current)
			case current == "percent":
				output(val.String() + "%")
			case hasNext && next == "cent":
				output(val.String() + "%")
				skip = true
			default:
				output(val.String())
				output(current)
			}
		case n.specials[current]:
			switch {
			case !nextInWords && !nextIsNumeric:
				if !val.isNone() {
					output(val.String())
				}
				output(current)
			case current == "and":
				if _, ok := n.multipliers[prev]; !hasPrev || !ok {
					if !val.isNone() {
						output(val.String())
					}
					output(current)
				}
			case current == "double" || current == "triple":
				if _, isOne := n.ones[next]; hasNext && (isOne || n.zeros[next]) {
					repeats := 2
					if current == "triple" {
						repeats = 3
					}
					val = strV(val.orEmpty() + strings.Repeat(fmt.Sprint(n.ones[next]), repeats))
					skip = true
				} else {
					if !val.isNone() {
						output(val.String())
					}
					output(current)
				}
			case current == "point":
				if hasNext && n.decimals[next] || nextIsNumeric {
					val = strV(val.orEmpty() + ".")
				}
			}
		default:
			return nil, fmt.Errorf("%w: unexpected token %q", ErrUnexpected, current)
		}
	}
	if !val.isNone() {
		output(val.String())
	}
	return out, nil
}

func isSuffixed(m map[string]suffixed, w string) bool { _, ok := m[w]; return ok }

// scaleResidual is value // 1000 * 1000 + value % 1000 * multiplier.
func scaleResidual(v, m *big.Int) *big.Int {
	k := big.NewInt(1000)
	before := new(big.Int).Mul(new(big.Int).Div(v, k), k)
	residual := new(big.Int).Mod(v, k)
	return before.Add(before, residual.Mul(residual, m))
}

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

// preprocess is EnglishNumberNormalizer.preprocess.
func (n *numberNormalizer) preprocess(s string) string {
	segments := split(reAndAHalf, s)
	var results []string
	for i, seg := range segments {
		if Strip(seg) == "" {
			continue
		}
		results = append(results, seg)
		if i == len(segments)-1 {
			continue
		}
		f := Fields(seg)
		last := f[len(f)-1]
		if _, m := n.multipliers[last]; n.decimals[last] || m {
			results = append(results, "point five")
		} else {
			results = append(results, "and a half")
		}
	}
	s = strings.Join(results, " ")
	s = subFunc(reLetterNum, s, func(m *regexp2.Match) string { return group(m, 1) + " " + group(m, 2) })
	s = subFunc(reNumLetter, s, func(m *regexp2.Match) string { return group(m, 1) + " " + group(m, 2) })
	s = subFunc(reSuffix, s, func(m *regexp2.Match) string { return group(m, 1) + group(m, 2) })
	return s
}

// split is re.split for a pattern without groups.
func split(re *regexp2.Regexp, s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	m, _ := re.FindRunesMatch(rs)
	for m != nil {
		out = append(out, string(rs[start:m.Index]))
		start = m.Index + m.Length
		m, _ = re.FindNextMatch(m)
	}
	return append(out, string(rs[start:]))
}

// postprocess is EnglishNumberNormalizer.postprocess.
func (n *numberNormalizer) postprocess(s string) string {
	s = subFunc(reCents, s, func(m *regexp2.Match) string {
		cents := group(m, 3)
		if len(cents) == 1 {
			cents = "0" + cents
		}
		return group(m, 1) + group(m, 2) + "." + cents
	})
	s = subFunc(reZeroCents, s, func(m *regexp2.Match) string {
		c, _ := strconv.Atoi(group(m, 1)) // one or two ASCII digits
		return "¢" + strconv.Itoa(c)
	})
	s = subFunc(reOne, s, func(m *regexp2.Match) string { return "one" + group(m, 1) })
	return s
}

// normalize is EnglishNumberNormalizer.__call__.
func (n *numberNormalizer) normalize(s string) (string, error) {
	s = n.preprocess(s)
	words, err := n.processWords(Fields(s))
	if err != nil {
		return "", err
	}
	return n.postprocess(strings.Join(words, " ")), nil
}
