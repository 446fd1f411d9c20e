// Package detaillog reads a LoadGen detail log (mlperf_log_detail.txt):
// the ":::MLLOG {json}" lines, each with a key, a value and metadata, as
// mlcommons/inference tools/submission/log_parser.py reads them.
package detaillog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Log is a parsed detail log. The caller owns it.
type Log struct {
	// Values holds the first value of each key (log_parser.py keeps the
	// first), as raw JSON.
	Values map[string]json.RawMessage
	// Errors holds the values of the entries marked is_error, in order:
	// the string, or the raw JSON where the value is not a string.
	Errors []string
}

// Read parses a detail log from r. Lines without the ":::MLLOG " prefix
// are skipped; so is a line that is not a JSON entry (as log_parser.py
// does), unless strict, when it is an error naming its line number.
func Read(r io.Reader, strict bool) (*Log, error) {
	l := &Log{Values: map[string]json.RawMessage{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for n := 1; sc.Scan(); n++ {
		line, ok := strings.CutPrefix(sc.Text(), ":::MLLOG ")
		if !ok {
			continue
		}
		var e struct {
			Key      string          `json:"key"`
			Value    json.RawMessage `json:"value"`
			Metadata struct {
				IsError bool `json:"is_error"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			if strict {
				return nil, fmt.Errorf("bad log line %d: %w", n, err)
			}
			continue
		}
		if _, seen := l.Values[e.Key]; !seen {
			l.Values[e.Key] = e.Value
		}
		if e.Metadata.IsError {
			var s string
			if json.Unmarshal(e.Value, &s) != nil {
				s = string(e.Value)
			}
			l.Errors = append(l.Errors, s)
		}
	}
	return l, sc.Err()
}

// ReadFile is Read on the file at path.
func ReadFile(path string, strict bool) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, strict)
}
