package tokenizer

import (
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"
)

// shared holds the tokenizers Shared loaded, by sharedKey.
var shared sync.Map

// sharedKey names one loaded tokenizer: its type, its tokenizer.json and
// the size and modification time of that file and of the
// tokenizer_config.json beside it.
type sharedKey struct {
	typ  reflect.Type
	file string
	json fileStamp
	conf fileStamp
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{size: -1}
	}
	return fileStamp{st.Size(), st.ModTime()}
}

// Shared returns load(path), read once per process while the files at
// path are unchanged: `mlperf submission` runs a benchmark's accuracy,
// performance and compliance runs in one process, and a 129k- or
// 200k-entry vocabulary takes about a second to read each time. path is
// a tokenizer.json or its folder, as the loaders take it; a load that
// fails is not kept. The tokenizers are read-only once built, so sharing
// one between runs and goroutines is safe.
func Shared[T any](path string, load func(string) (T, error)) (T, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, "tokenizer.json")
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	k := sharedKey{typ: reflect.TypeFor[T](), file: file, json: stampOf(file), conf: stampOf(filepath.Join(filepath.Dir(file), "tokenizer_config.json"))}
	if v, ok := shared.Load(k); ok {
		return v.(T), nil
	}
	tok, err := load(path)
	if err != nil {
		return tok, err
	}
	v, _ := shared.LoadOrStore(k, tok)
	return v.(T), nil
}
