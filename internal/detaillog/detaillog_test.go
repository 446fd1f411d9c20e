package detaillog

import (
	"strings"
	"testing"
)

// TestReadKeepsFirstValuesAndErrors: the first value of a repeated key
// wins, error entries are kept in order (a non-string value as its JSON),
// other lines are skipped, and a malformed entry is skipped unless strict.
func TestReadKeepsFirstValuesAndErrors(t *testing.T) {
	const log = `preamble
:::MLLOG {"key": "a", "value": 1, "metadata": {}}
:::MLLOG {"key": "a", "value": 2, "metadata": {}}
:::MLLOG {"key": "error_runtime", "value": "boom", "metadata": {"is_error": true}}
:::MLLOG {not json
:::MLLOG {"key": "error_invalid_config", "value": {"x": 1}, "metadata": {"is_error": true}}
`
	l, err := Read(strings.NewReader(log), false)
	if err != nil {
		t.Fatal(err)
	}
	if string(l.Values["a"]) != "1" || len(l.Values) != 3 {
		t.Errorf("values %v; want a=1 first, 3 keys", l.Values)
	}
	if len(l.Errors) != 2 || l.Errors[0] != "boom" || l.Errors[1] != `{"x": 1}` {
		t.Errorf("errors %q", l.Errors)
	}
	if _, err := Read(strings.NewReader(log), true); err == nil || !strings.Contains(err.Error(), "bad log line 5") {
		t.Errorf("strict: %v; want the bad line 5 named", err)
	}
}
