package kvcache

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend"
)

func TestBytesPerToken(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want int64
	}{
		// 2 (K and V) × 28 layers × 16 heads × 256 dims × 4 bytes
		{"gptj fp32", Config{Layers: 28, KVHeads: 16, HeadDim: 256, DType: backend.Float32}, 917504},
		// 2 × 80 × 8 × 128 × 2
		{"llama2-70b fp16", Config{Layers: 80, KVHeads: 8, HeadDim: 128, DType: backend.Float16}, 327680},
		{"llama2-7b fp16", Config{Layers: 32, KVHeads: 32, HeadDim: 128, DType: backend.Float16}, 524288},
	}
	for _, tc := range cases {
		if got := tc.cfg.BytesPerToken(); got != tc.want {
			t.Errorf("%s: %d bytes/token, want %d", tc.name, got, tc.want)
		}
	}
}

// tiny: 2 layers, 2 heads, head dim 3 → hd 6, 2*2*6*4 = 96 bytes per token.
var tiny = Config{Layers: 2, KVHeads: 2, HeadDim: 3, DType: backend.Float32}

// block returns a [heads=2, n, 3] block whose values encode (tag, head,
// token, dim) so that any misplacement shows.
func block(tag float32, from, n int) []float32 {
	out := make([]float32, 0, 2*n*3)
	for h := range 2 {
		for t := from; t < from+n; t++ {
			for d := range 3 {
				out = append(out, tag*1000+float32(h*100+t*10+d))
			}
		}
	}
	return out
}

func appendAll[E Elem](t *testing.T, c *Cache[E], id SeqID, k, v []E) {
	t.Helper()
	for l := range c.cfg.Layers {
		if err := c.Append(id, l, k, v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMemoryAccounting(t *testing.T) {
	bpt := tiny.BytesPerToken()
	if bpt != 96 {
		t.Fatalf("bytes per token %d", bpt)
	}
	cfg := tiny
	cfg.BudgetBytes = 40 * bpt
	c, err := New[float32](cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := c.Alloc(4)
	if c.Used() != 4*bpt {
		t.Fatalf("used %d after Alloc(4)", c.Used())
	}
	// 5 tokens: grows to max(5, 8, 16) = 16
	appendAll(t, c, a, block(1, 0, 5), block(2, 0, 5))
	if c.Used() != 16*bpt {
		t.Fatalf("used %d after growth, want %d", c.Used(), 16*bpt)
	}
	ids, err := c.Fork(a, 2) // +16 tokens → 32
	if err != nil || c.Used() != 32*bpt {
		t.Fatalf("fork: %v, used %d", err, c.Used())
	}
	if _, err := c.Fork(a, 2); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("fork over budget: %v", err)
	}
	if _, err := c.Alloc(9); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("alloc over budget: %v", err)
	}
	if c.Used() != 32*bpt || c.Sequences() != 2 {
		t.Fatalf("failed allocations changed the accounting: %d, %d seqs", c.Used(), c.Sequences())
	}
	// reorder [a, b] ← parents [0, 0]: one copy, one drop → unchanged
	if err := c.Reorder(ids, []int{0, 0}); err != nil || c.Used() != 32*bpt {
		t.Fatalf("reorder: %v, used %d", err, c.Used())
	}
	for _, id := range ids {
		if err := c.Release(id); err != nil {
			t.Fatal(err)
		}
	}
	if c.Used() != 0 || c.Sequences() != 0 {
		t.Fatalf("used %d after releasing everything", c.Used())
	}
	if err := c.Release(a); !errors.Is(err, ErrBadInput) {
		t.Fatalf("double release: %v", err)
	}
}

func TestAppendGatherRoundTrip(t *testing.T) {
	c, _ := New[float32](tiny)
	a, _ := c.Alloc(0)
	b, _ := c.Alloc(2)
	// a: 3 tokens then 1; b: 1 token
	appendAll(t, c, a, block(1, 0, 3), block(2, 0, 3))
	appendAll(t, c, a, block(1, 3, 1), block(2, 3, 1))
	appendAll(t, c, b, block(3, 0, 1), block(4, 0, 1))
	if n, _ := c.Len(a); n != 4 {
		t.Fatalf("len a = %d", n)
	}
	T, _ := c.MaxLen([]SeqID{a, b})
	k := make([]float32, 2*2*T*3)
	v := make([]float32, len(k))
	got, err := c.Gather(1, []SeqID{a, b}, k, v)
	if err != nil || got != 4 {
		t.Fatal(err, got)
	}
	// row a = block(1, 0, 4); row b = 3 zero positions then block(3, 0, 1)
	wantK := block(1, 0, 4)
	for h := range 2 {
		wantK = append(wantK, 0, 0, 0, 0, 0, 0, 0, 0, 0)
		wantK = append(wantK, block(3, 0, 1)[h*3:h*3+3]...)
	}
	if !slices.Equal(k, wantK) {
		t.Fatalf("gather keys\n got %v\nwant %v", k, wantK)
	}
	if v[0] != 2000 || v[len(v)-1] != 4000+100+2 {
		t.Fatalf("gather values %v", v)
	}
}

func TestAppendPresent(t *testing.T) {
	// Appending the newest position of each step's present (past + new)
	// must rebuild the sequence position by position.
	c, _ := New[float32](tiny)
	inc, _ := c.Alloc(0)
	for step := 1; step <= 5; step++ {
		// a present of batch 2 × heads 2 × step × 3; batch row 1 is
		// another sequence's and must be ignored for row 0's id
		present := append(block(float32(step), 0, step), block(9, 0, step)...)
		pv := append(block(float32(step+10), 0, step), block(9, 0, step)...)
		other, _ := c.Alloc(0)
		for l := range 2 {
			if err := c.AppendPresent(l, []SeqID{inc, other}, present, pv, 1); err != nil {
				t.Fatal(err)
			}
		}
		c.Release(other)
	}
	k := make([]float32, 2*5*3)
	v := make([]float32, len(k))
	if _, err := c.Gather(0, []SeqID{inc}, k, v); err != nil {
		t.Fatal(err)
	}
	// position t came from step t+1's present, whose tag is t+1
	for h := range 2 {
		for tk := range 5 {
			for d := range 3 {
				want := float32(tk+1)*1000 + float32(h*100+tk*10+d)
				if got := k[(h*5+tk)*3+d]; got != want {
					t.Fatalf("h%d t%d d%d = %v, want %v", h, tk, d, got, want)
				}
			}
		}
	}
	if err := c.AppendPresent(0, []SeqID{inc}, make([]float32, 6), make([]float32, 6), 2); !errors.Is(err, ErrBadInput) {
		t.Fatalf("n > present length: %v", err)
	}
}

func TestForkAndReorder(t *testing.T) {
	c, _ := New[uint16](Config{Layers: 1, KVHeads: 1, HeadDim: 1, DType: backend.Float16})
	p, _ := c.Alloc(0)
	appendAll(t, c, p, []uint16{7, 8}, []uint16{70, 80})
	beams, err := c.Fork(p, 3)
	if err != nil || beams[0] != p || len(beams) != 3 {
		t.Fatal(err, beams)
	}
	// each beam appends its own token
	for i, id := range beams {
		appendAll(t, c, id, []uint16{uint16(i)}, []uint16{uint16(10 * i)})
	}
	// new beam 0 ← old 2, new 1 ← old 2, new 2 ← old 0
	if err := c.Reorder(beams, []int{2, 2, 0}); err != nil {
		t.Fatal(err)
	}
	want := [][]uint16{{7, 8, 2}, {7, 8, 2}, {7, 8, 0}}
	for i, id := range beams {
		k := make([]uint16, 3)
		v := make([]uint16, 3)
		c.Gather(0, []SeqID{id}, k, v)
		if !slices.Equal(k, want[i]) || v[2] != want[i][2]*10 {
			t.Errorf("beam %d = %v/%v, want %v", i, k, v, want[i])
		}
	}
	// copies are independent
	appendAll(t, c, beams[0], []uint16{5}, []uint16{50})
	if n, _ := c.Len(beams[1]); n != 3 {
		t.Errorf("beam 1 grew with beam 0: %d", n)
	}
	for _, bad := range [][]int{{0, 1}, {0, 1, 3}, {-1, 0, 0}} {
		if err := c.Reorder(beams, bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("parents %v: %v", bad, err)
		}
	}
	if err := c.Reorder([]SeqID{beams[0], beams[0]}, []int{0, 1}); !errors.Is(err, ErrBadInput) {
		t.Errorf("duplicate ids: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New[float32](Config{Layers: 0, KVHeads: 1, HeadDim: 1, DType: backend.Float32}); !errors.Is(err, ErrBadInput) {
		t.Error(err)
	}
	if _, err := New[uint16](tiny); !errors.Is(err, ErrBadInput) {
		t.Error("uint16 cache for float32 accepted")
	}
	cfg := tiny
	cfg.MaxTokens = 2
	c, _ := New[float32](cfg)
	id, _ := c.Alloc(1)
	if err := c.Append(id, 0, block(1, 0, 3), block(1, 0, 3)); !errors.Is(err, ErrBadInput) {
		t.Errorf("past MaxTokens: %v", err)
	}
	if err := c.Append(id, 2, block(1, 0, 1), block(1, 0, 1)); !errors.Is(err, ErrBadInput) {
		t.Errorf("layer out of range: %v", err)
	}
	if err := c.Append(id, 0, make([]float32, 5), make([]float32, 5)); !errors.Is(err, ErrBadInput) {
		t.Errorf("ragged block: %v", err)
	}
	c.Append(id, 0, block(1, 0, 1), block(1, 0, 1))
	if _, err := c.Gather(1, []SeqID{id}, make([]float32, 12), make([]float32, 12)); !errors.Is(err, ErrBadInput) {
		t.Errorf("gather with layers out of step: %v", err)
	}
	if _, err := c.Gather(0, []SeqID{id}, make([]float32, 1), make([]float32, 1)); !errors.Is(err, ErrBadInput) {
		t.Errorf("short gather buffer: %v", err)
	}
	if _, err := c.Alloc(3); !errors.Is(err, ErrBadInput) {
		t.Errorf("alloc past MaxTokens: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	c, _ := New[float32](tiny)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			id, _ := c.Alloc(0)
			for range 20 {
				for l := range 2 {
					c.Append(id, l, block(float32(g), 0, 1), block(float32(g), 0, 1))
				}
			}
			k := make([]float32, 2*20*3)
			c.Gather(1, []SeqID{id}, k, make([]float32, len(k)))
			c.Release(id)
		})
	}
	wg.Wait()
	if c.Used() != 0 {
		t.Fatalf("used %d", c.Used())
	}
}
