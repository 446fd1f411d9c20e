package loadgen

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// jsonString quotes s as JSON without HTML escaping, as LoadGen writes it.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// formatDouble prints v as C++'s default ostream (6 significant digits).
func formatDouble(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return jsonString(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return formatDouble(x)
	case float32:
		return formatDouble(float64(x))
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case []uint64:
		var b strings.Builder
		b.WriteByte('[')
		for i, u := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatUint(u, 10))
		}
		b.WriteByte(']')
		return b.String()
	case rawJSON:
		return string(x)
	}
	rv := reflect.ValueOf(v)
	if rv.CanInt() {
		return strconv.FormatInt(rv.Int(), 10)
	}
	if rv.CanUint() {
		return strconv.FormatUint(rv.Uint(), 10)
	}
	return jsonString(fmt.Sprint(v))
}

type rawJSON string
