package generate

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/llm/sample"
)

type result struct {
	toks   []int32
	first  int32
	nfirst int
	stream []int32 // the tokens of Token, in order
	err    error
	done   int
}

func TestBatcherMatchesReference(t *testing.T) {
	const vocab = 13
	for _, c := range fakeCases {
		for _, maxBatch := range []int{1, 3, 8} {
			t.Run(c.name, func(t *testing.T) {
				m, _ := c.model(t, vocab)
				// leave used states in the model's pool first
				if _, err := m.Greedy(context.Background(), prompts(3, 5, vocab, 1), GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 3}}); err != nil {
					t.Fatal(err)
				}
				cfg := BatcherConfig{GreedyConfig: sample.GreedyConfig{EOS: 3, MinNewTokens: 2, MaxNewTokens: 10}, MaxBatch: maxBatch}
				bt, err := m.NewBatcher(cfg)
				if err != nil {
					t.Fatal(err)
				}
				ps := prompts(20, 9, vocab, uint64(maxBatch)+5)
				res := make([]result, len(ps))
				var mu sync.Mutex
				runErr := make(chan error, 1)
				go func() { runErr <- bt.Run(context.Background()) }()
				var wg sync.WaitGroup
				for i, p := range ps {
					wg.Go(func() {
						bt.Submit(&Request{
							Prompt:       p,
							MaxNewTokens: maxNewFor(i),
							FirstToken: func(tok int32) {
								mu.Lock()
								res[i].first, res[i].nfirst = tok, res[i].nfirst+1
								mu.Unlock()
							},
							Token: func(tok int32) {
								mu.Lock()
								res[i].stream = append(res[i].stream, tok)
								mu.Unlock()
							},
							Done: func(toks []int32, err error) {
								mu.Lock()
								res[i].toks, res[i].err, res[i].done = toks, err, res[i].done+1
								mu.Unlock()
							},
						})
					})
				}
				wg.Wait()
				bt.Close()
				if err := <-runErr; err != nil {
					t.Fatal(err)
				}
				for i, p := range ps {
					gc := cfg.GreedyConfig
					if n := maxNewFor(i); n > 0 {
						gc.MaxNewTokens = n
					}
					want := refGreedy(t, vocab, p, gc)
					r := res[i]
					if r.err != nil || r.done != 1 || r.nfirst != 1 {
						t.Fatalf("request %d: err %v, Done called %d times, FirstToken %d times", i, r.err, r.done, r.nfirst)
					}
					if !slices.Equal(r.toks, want) || r.first != want[0] {
						t.Errorf("request %d: got %v (first %d), want %v", i, r.toks, r.first, want)
					}
					if !slices.Equal(r.stream, want) {
						t.Errorf("request %d: streamed %v, want %v", i, r.stream, want)
					}
				}
				// closed: later requests fail at once
				var got error
				bt.Submit(&Request{Prompt: []int32{1}, Done: func(_ []int32, err error) { got = err }})
				if !errors.Is(got, ErrClosed) {
					t.Errorf("Submit after Close: %v, want ErrClosed", got)
				}
			})
		}
	}
}

func TestBatcherCancel(t *testing.T) {
	m, _ := fakeCases[1].model(t, 9)
	bt, err := m.NewBatcher(BatcherConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 1 << 20}, MaxBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, 3)
	for range 3 {
		bt.Submit(&Request{Prompt: []int32{1, 2}, FirstToken: func(int32) { cancel() }, Done: func(_ []int32, err error) { errs <- err }})
	}
	if err := bt.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v, want context.Canceled", err)
	}
	for range 3 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("request: %v, want context.Canceled", err)
		}
	}
	var got error
	bt.Submit(&Request{Prompt: []int32{1}, Done: func(_ []int32, err error) { got = err }})
	if !errors.Is(got, ErrClosed) {
		t.Errorf("Submit after a cancelled Run: %v, want ErrClosed", got)
	}
}

func TestBatcherBadInput(t *testing.T) {
	m, _ := fakeCases[1].model(t, 9)
	if _, err := m.NewBatcher(BatcherConfig{GreedyConfig: sample.GreedyConfig{MaxNewTokens: 4}}); !errors.Is(err, ErrBadInput) {
		t.Errorf("MaxBatch 0: %v", err)
	}
	bt, err := m.NewBatcher(BatcherConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 4}, MaxBatch: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got error
	bt.Submit(&Request{Prompt: []int32{9}, Done: func(_ []int32, err error) { got = err }})
	if !errors.Is(got, ErrBadInput) {
		t.Errorf("token outside the vocabulary: %v, want ErrBadInput", got)
	}
}

// maxNewFor gives every third request its own MaxNewTokens.
func maxNewFor(i int) int {
	if i%3 == 1 {
		return 4
	}
	return 0
}
