package check

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// logFile is a parsed detail log, as the checker's LoadgenParser
// (mlcommons/inference tools/submission/submission_checker/parsers/
// loadgen_parser.py) holds it: the messages of each key in file order,
// keys in the order they first appear. An endpoints run's files are read
// into the same shape (endpoints.go).
type logFile struct {
	path string
	keys []string
	msgs map[string][]value // each message is the whole JSON entry
	// endpoints marks a log made from an endpoints run's files: its
	// errors are the count of failed samples, its num_errors key.
	endpoints bool
}

func newLogFile(path string) *logFile { return &logFile{path: path, msgs: map[string][]value{}} }

func (l *logFile) add(key string, msg value) {
	if _, ok := l.msgs[key]; !ok {
		l.keys = append(l.keys, key)
	}
	l.msgs[key] = append(l.msgs[key], msg)
}

// get is parser[key]: the value of the key's first message, None when the
// key is absent.
func (l *logFile) get(key string) value {
	m := l.msgs[key]
	if len(m) == 0 {
		return none
	}
	return m[0].get("value")
}

// has reports whether key is in the log (key in parser.get_keys()).
func (l *logFile) has(key string) bool { return len(l.msgs[key]) > 0 }

// errors returns the error messages' values in the parser's order (by
// key, keys in first-appearance order), or the Python exception reading
// a message without metadata.is_error raises.
func (l *logFile) errors() ([]value, error) {
	if l.endpoints {
		return nil, nil
	}
	var out []value
	for _, k := range l.keys {
		for _, m := range l.msgs[k] {
			md := m.get("metadata")
			if !md.has("is_error") {
				if md.isDict() {
					return nil, pyErr("KeyError: 'is_error'")
				}
				return nil, pyErr("KeyError: 'metadata'")
			}
			if md.get("is_error").truthy() {
				out = append(out, m.get("value"))
			}
		}
	}
	return out, nil
}

// numErrors is parser.num_errors(): for an endpoints run, its failed
// sample count.
func (l *logFile) numErrors() (value, error) {
	if l.endpoints {
		if v := l.get("num_errors"); v.truthy() {
			return v, nil
		}
		return vInt(0), nil
	}
	e, err := l.errors()
	return vInt(int64(len(e))), err
}

// crash is a point where the MLCommons checker stops with an uncaught
// Python exception: its traceback ends the run, with no summary. check
// reports it as an error naming the file and the fix, and goes on with
// the rest of the tree.
type crash struct {
	path, exception, fix string
}

func (c *crash) Error() string {
	return fmt.Sprintf("%s: %s; the MLCommons checker stops here (%s)", c.path, c.fix, c.exception)
}

// readLogFile parses a detail log as LoadgenParser(path) does with
// strict=True; where that raises, the checker crashes.
func readLogFile(path string) (*logFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &crash{path, "IsADirectoryError or PermissionError reading it", "make it a readable LoadGen detail log file"}
	}
	if !utf8.Valid(data) {
		return nil, &crash{path, "UnicodeDecodeError", "the file is not UTF-8 text; give the LoadGen detail log itself"}
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	l := newLogFile(path)
	marker := ""
	for i, line := range lines {
		line = strings.TrimRightFunc(line, isPySpace)
		if i == 0 {
			switch {
			case strings.HasPrefix(line, ":::MLLOG"):
				marker = ":::MLLOG"
			case strings.HasPrefix(line, ":::ENDPTS"):
				marker = ":::ENDPTS"
			default:
				return nil, &crash{path, "RuntimeError: Marker not found in first line", "its first line must be a ':::MLLOG {...}' entry, as LoadGen writes"}
			}
		}
		if !strings.HasPrefix(line, marker) {
			continue
		}
		v, err := decodeJSON([]byte(line[len(marker):]))
		if err == nil && (!v.isDict() || !v.has("key")) {
			err = fmt.Errorf("no key")
		}
		if err != nil {
			return nil, &crash{path, "RuntimeError: Encountered invalid line", fmt.Sprintf("line %d is not a JSON log entry with a key; restore the log LoadGen wrote", i+1)}
		}
		l.add(pyStr(v.get("key")), v)
	}
	return l, nil
}

// isPySpace is the white space str.rstrip() removes.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// readLines is f.readlines() of a text file: lines with their newline,
// or the crash of a file that is not UTF-8 or not readable.
func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &crash{path, "IsADirectoryError or PermissionError reading it", "make it a readable text file"}
	}
	if !utf8.Valid(data) {
		return nil, &crash{path, "UnicodeDecodeError", "the file is not UTF-8 text"}
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

// readJSONFile is json.load of a file; a file that is not JSON crashes
// the checker.
func readJSONFile(path string) (value, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return none, &crash{path, "IsADirectoryError or PermissionError reading it", "make it a readable JSON file"}
	}
	if !utf8.Valid(data) {
		return none, &crash{path, "UnicodeDecodeError", "the file is not UTF-8 text"}
	}
	v, err := decodeJSON(data) // a UTF-8 BOM is an error, as for Python's json.load
	if err != nil {
		return none, &crash{path, "json.decoder.JSONDecodeError", fmt.Sprintf("it is not valid JSON (%v)", err)}
	}
	return v, nil
}
