package benchmark

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
)

// AccuracyLogName is the accuracy log LoadGen writes in a run's folder.
const AccuracyLogName = "mlperf_log_accuracy.json"

// resolveLog checks the --log of `mlperf accuracy` before it is parsed: a
// run folder stands for the accuracy log in it; a folder without the log
// and an empty file are refused with what to give instead. A path that
// does not exist is left to the scorer, which checks its own flags first
// and then names the missing file.
func resolveLog(b *spec.Benchmark, path string) (string, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return path, nil // the reader reports it
	case st.IsDir():
		inner := filepath.Join(path, AccuracyLogName)
		if ist, err := os.Stat(inner); err == nil && !ist.IsDir() {
			return resolveLog(b, inner)
		}
		return "", fmt.Errorf("%s: --log %s is a folder without %s; give the accuracy log of an accuracy or submission run (--mode accuracy writes it)", b.Name, path, AccuracyLogName)
	case st.Size() == 0:
		return "", fmt.Errorf("%s: --log %s is empty (0 bytes): the run stopped before LoadGen wrote any of the log; run it again to completion", b.Name, path)
	}
	return path, nil
}
