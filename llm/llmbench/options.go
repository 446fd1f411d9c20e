package llmbench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
)

// TokenLatencyMin is why an LLM benchmark with token latencies asks for
// at least 2 new tokens: LoadGen needs n_tokens > 1 to time the tokens
// after the first.
const TokenLatencyMin = "with token latencies LoadGen needs n_tokens > 1"

// NewTokens is an LLM benchmark's --max-new-tokens: the most tokens
// generated per sample.
type NewTokens struct {
	// Bench names the benchmark in errors and notes.
	Bench string
	// Default is the reference's value, taken when the flag is not given.
	Default int
	// Min and Max bound a given value (Max 0: no upper bound); Why says
	// why Min, in the error (e.g. TokenLatencyMin).
	Min, Max int
	Why      string
}

// Option is the --max-new-tokens option of the benchmark's descriptor,
// defaulting to the reference's value.
func (n NewTokens) Option() spec.Option {
	return spec.Option{Name: "max-new-tokens", Default: strconv.Itoa(n.Default),
		Usage: fmt.Sprintf("most tokens generated per sample (the reference: %d; fewer is not a compliant run)", n.Default)}
}

// Parse returns the --max-new-tokens of e: Default when not given, else
// a whole number from Min (to Max), or a usage error saying what is
// wanted.
func (n NewTokens) Parse(e spec.Extra) (int, error) {
	s := e["max-new-tokens"]
	if s == "" {
		return n.Default, nil
	}
	v, err := strconv.Atoi(s)
	switch {
	case n.Max > 0 && (err != nil || v < n.Min || v > n.Max):
		return 0, spec.UsageError("%s: --max-new-tokens %s: want %d to %d (%s)", n.Bench, s, n.Min, n.Max, n.Why)
	case err != nil || v < n.Min:
		return 0, spec.UsageError("%s: --max-new-tokens %s: want at least %d (%s)", n.Bench, s, n.Min, n.Why)
	}
	return v, nil
}

// NoteNonCompliant writes to w that a run generating up to maxNew tokens
// is not a compliant run when maxNew is not Default.
func (n NewTokens) NoteNonCompliant(w io.Writer, maxNew int) {
	noteNewTokens(w, n.Bench, maxNew, n.Default)
}

func noteNewTokens(w io.Writer, bench string, maxNew, reference int) {
	if maxNew != reference {
		fmt.Fprintf(w, "%s: --max-new-tokens %d (the reference generates up to %d): not a compliant run\n", bench, maxNew, reference)
	}
}

// ScoreDType is the element type of an LLM accuracy log's token ids for
// the scorer's --dtype s: int32 (the references' and the default for "")
// or int64; any other is a usage error naming bench.
func ScoreDType(bench, s string) (accuracy.DType, error) {
	if s == "" {
		return accuracy.Int32, nil
	}
	dt, err := accuracy.ParseDType(s)
	if err != nil || (dt != accuracy.Int32 && dt != accuracy.Int64) {
		return "", spec.UsageError("%s: --dtype %q: want int32 or int64", bench, s)
	}
	return dt, nil
}

// NoteUnusedCache writes to the run's stderr that --cache is not used
// when it is given: an LLM benchmark's prompts are tokenized already in
// its data set.
func NoteUnusedCache(env *spec.OpenRequest, bench string) {
	if env.Cache != "" {
		fmt.Fprintf(env.Stderr, "%s: --cache is not used: the prompts are tokenized already in the data set\n", bench)
	}
}

// After is the spec.Instance.After of an LLM benchmark's run on bench:
// it writes "<name>: N samples, M <counted>" to the run's stderr and,
// with test06 set and an audit.config given (a compliance run), checks
// the accuracy log as TEST06's run_verification.py does, with eos the
// end-of-sequence id.
func After(env *spec.OpenRequest, bench *SUT, name, counted string, test06 bool, eos int64) func(context.Context, *loadgen.Result) error {
	return func(ctx context.Context, res *loadgen.Result) error {
		samples, tokens := bench.Done()
		fmt.Fprintf(env.Stderr, "%s: %d samples, %d %s\n", name, samples, tokens, counted)
		if env.AuditConf == "" || !test06 {
			return nil
		}
		return WriteTEST06(filepath.Join(env.Out, "mlperf_log_accuracy.json"), env.Scenario.String(), env.Out, accuracy.Int32, eos, env.Stdout, env.Stderr)
	}
}
