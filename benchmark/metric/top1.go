package metric

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
)

func init() {
	Register("top1", "ImageNet top-1 of an accuracy log against val_map.txt (accuracy-imagenet.py)", metricTop1)
}

func metricTop1(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric top1", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json (required)")
	labels := fs.String("labels", "", "val_map.txt: lines 'image label' in QSL order (required)")
	dtype := fs.String("dtype", "float32", "response type: float32 (the reference), int32 or int64")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *logPath == "" || *labels == "" {
		return usageError("--log FILE and --labels val_map.txt are required")
	}
	dt, err := accuracy.ParseDType(*dtype)
	if err != nil {
		return usageError("--dtype: %v", err)
	}
	l, err := readValMap(*labels)
	if err != nil {
		return err
	}
	r, err := accuracy.Top1(*logPath, l, dt)
	if err != nil {
		return err
	}
	return mo.Finish(stdout, []string{r.String()})
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
