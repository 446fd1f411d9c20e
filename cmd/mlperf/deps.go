package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/internal/deps"
)

func init() {
	handle("deps", "print where a side file `make setup` installs is found, as the binary searches: deps gptj/encoder.json", depsCmd)
}

// depsCmd is `mlperf deps REL`: the path of a side file (the ONNX Runtime
// library, a vocabulary, a tokenizer) found where the binary looks for it
// (internal/deps), so that the per-benchmark scripts find the same file
// the binary would, from any folder. Not found is an error listing every
// place searched and the fix.
func depsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || args[0] == "" || args[0][0] == '-' {
		return usageError("give one side file, e.g. mlperf deps gptj/encoder.json")
	}
	p, err := deps.Find(args[0])
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, p)
	return nil
}
