package mixtral

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/loadgen"
)

// fixedSUT completes each sample with outs[index] (and reports its first
// id through FirstToken when it can).
type fixedSUT struct {
	outs map[loadgen.SampleIndex][]int32
}

func (f fixedSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	for _, s := range samples {
		o := f.outs[s.Index]
		if tc, ok := c.(loadgen.TokenCompleter); ok {
			tc.FirstToken(s.ID, generate.EncodeInt32(nil, o[:1]))
		}
		c.Complete(loadgen.Response{ID: s.ID, Data: generate.EncodeInt32(nil, o), Tokens: len(o)})
	}
}

func (fixedSUT) Close() error { return nil }

type recorder struct {
	mu    sync.Mutex
	done  map[loadgen.ResponseID]loadgen.Response
	first map[loadgen.ResponseID][]byte
}

func (r *recorder) Complete(rs ...loadgen.Response) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range rs {
		r.done[x.ID] = x
	}
}

type tokenRecorder struct{ *recorder }

func (r tokenRecorder) FirstToken(id loadgen.ResponseID, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.first[id] = data
}

// TestTrimSUT: responses reach the loadgen as dataset.py's postProcess
// leaves them (trailing </s> and <unk> dropped; MBXP cut after
// "\n```\n", other rows not), with Tokens their count; the first token is
// passed on untrimmed where the loadgen takes it.
func TestTrimSUT(t *testing.T) {
	ds := &mixtral.Dataset{Samples: []mixtral.Sample{{Dataset: mixtral.MBXP}, {Dataset: mixtral.GSM8K}, {Dataset: mixtral.OpenOrca}}}
	stop := mixtral.MBXPStop
	outs := map[loadgen.SampleIndex][]int32{
		0: slices.Concat([]int32{5, 6}, stop, []int32{7, 8, 2}), // cut after the stop sequence
		1: slices.Concat([]int32{9}, stop, []int32{2, 2, 0}),    // not MBXP: only the tail goes
		2: {2, 2},                                               // all EOS: nothing left
	}
	want := map[loadgen.SampleIndex][]int32{0: slices.Concat([]int32{5, 6}, stop), 1: slices.Concat([]int32{9}, stop), 2: {}}
	for _, withTokens := range []bool{false, true} {
		s := newTrimSUT(fixedSUT{outs}, ds)
		rec := &recorder{done: map[loadgen.ResponseID]loadgen.Response{}, first: map[loadgen.ResponseID][]byte{}}
		var c loadgen.Completer = rec
		if withTokens {
			c = tokenRecorder{rec}
		}
		s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 10, Index: 0}, {ID: 11, Index: 1}, {ID: 12, Index: 2}}, c)
		for id, idx := range map[loadgen.ResponseID]loadgen.SampleIndex{10: 0, 11: 1, 12: 2} {
			r := rec.done[id]
			got, err := generate.DecodeInt32(r.Data)
			if err != nil || !slices.Equal(got, want[idx]) || r.Tokens != len(want[idx]) {
				t.Errorf("tokens %v: sample %d: %v (%d tokens), want %v", withTokens, idx, got, r.Tokens, want[idx])
			}
			if f := rec.first[id]; withTokens != (f != nil) || (f != nil && !slices.Equal(f, generate.EncodeInt32(nil, outs[idx][:1]))) {
				t.Errorf("tokens %v: sample %d: first token %v", withTokens, idx, f)
			}
		}
		if len(s.pending) != 0 {
			t.Errorf("%d responses still pending", len(s.pending))
		}
	}
}
