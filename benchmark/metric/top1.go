package metric

import (
	"bufio"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
)

// Top1Options are the inputs of Top1.
type Top1Options struct {
	// Log is the mlperf_log_accuracy.json; Labels the val_map.txt ("image
	// label" lines in QSL order).
	Log, Labels string
	// DType is the response type: float32 (the reference's; ""), int32 or
	// int64.
	DType string
}

// Top1 is accuracy-imagenet.py: top-1 of an accuracy log against
// val_map.txt's labels.
func Top1(o Top1Options) (*spec.Score, error) {
	if o.Log == "" || o.Labels == "" {
		return nil, usageError("--log FILE and --labels val_map.txt are required")
	}
	if o.DType == "" {
		o.DType = "float32"
	}
	dt, err := accuracy.ParseDType(o.DType)
	if err != nil {
		return nil, usageError("--dtype: %v", err)
	}
	l, err := readValMap(o.Labels)
	if err != nil {
		return nil, err
	}
	r, err := accuracy.Top1(o.Log, l, dt)
	if err != nil {
		return nil, err
	}
	return lines(r.String()), nil
}

// readValMap reads the labels of val_map.txt ("path label" per line), as
// accuracy-imagenet.py does.
func readValMap(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	defer f.Close()
	var labels []int
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("accuracy: %s:%d: want 'image label', have %q", path, n, line)
		}
		v, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, fmt.Errorf("accuracy: %s:%d: label %q is not an integer", path, n, fields[1])
		}
		labels = append(labels, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("accuracy: %s: %w", path, err)
	}
	return labels, nil
}
