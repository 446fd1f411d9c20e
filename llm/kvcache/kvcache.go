// Package kvcache stores the attention keys and values of decoder sequences
// between steps of a generation loop: per sequence, per layer (in layer
// order 0..L-1), a key and a value block of kv-heads × tokens × head-dim
// elements, laid out head-major like the past_key_values tensors of a
// Hugging Face optimum export ([batch, kv_heads, tokens, head_dim]).
//
// A cache is sized from the model's configuration, accounts every byte it
// allocates and refuses to grow past its budget (ErrOverBudget), so a
// server can bound its memory. It supports what decoding needs: append the
// newest positions from the model's present outputs, gather a batch back
// into past inputs, fork a prefilled prompt into N beams, reorder beams by
// their parent, and release finished sequences.
//
// Elements are float32, or float16 kept as raw IEEE 754 half bits in uint16
// (never converted). All methods are safe for concurrent use; they take one
// mutex, so callers gather and append whole batches at a time.
package kvcache

import (
	"errors"
	"fmt"
	"sync"

	"github.com/mlperf-go/inference/backend"
)

// Errors of this package, wrapped with details.
var (
	// ErrOverBudget means an allocation would take the cache past its
	// byte budget. Release sequences or raise Config.BudgetBytes.
	ErrOverBudget = errors.New("kvcache: over budget")
	// ErrBadInput is wrapped by errors about shapes, ids and layers.
	ErrBadInput = errors.New("kvcache: bad input")
)

// Elem is an element type of the cache: float32, or uint16 holding float16
// bits.
type Elem interface{ float32 | uint16 }

// Config is the shape of a model's cache.
type Config struct {
	Layers  int           // decoder layers (GPT-J 28, Llama 2 70B 80)
	KVHeads int           // key/value heads (GPT-J 16, Llama 2 70B 8)
	HeadDim int           // elements per head (GPT-J 256, Llama 2 128)
	DType   backend.DType // backend.Float32 or backend.Float16
	// MaxTokens caps the length of one sequence (the context length,
	// e.g. 2048 for GPT-J); 0 means no cap.
	MaxTokens int
	// BudgetBytes caps the bytes the cache may allocate in all; 0 means no
	// cap.
	BudgetBytes int64
}

// BytesPerToken is the memory one token of one sequence takes: keys and
// values of every layer, 2 × Layers × KVHeads × HeadDim × element size.
func (c Config) BytesPerToken() int64 {
	return 2 * int64(c.Layers) * int64(c.KVHeads) * int64(c.HeadDim) * int64(c.DType.Size())
}

func (c Config) check() error {
	if c.Layers <= 0 || c.KVHeads <= 0 || c.HeadDim <= 0 {
		return fmt.Errorf("%w: layers %d, kv heads %d, head dim %d must all be positive", ErrBadInput, c.Layers, c.KVHeads, c.HeadDim)
	}
	if c.MaxTokens < 0 || c.BudgetBytes < 0 {
		return fmt.Errorf("%w: negative MaxTokens %d or BudgetBytes %d", ErrBadInput, c.MaxTokens, c.BudgetBytes)
	}
	return nil
}

// PastNames returns the input names of layer i's cache in the Hugging Face
// optimum convention: past_key_values.i.key and past_key_values.i.value.
func PastNames(layer int) (key, value string) {
	return fmt.Sprintf("past_key_values.%d.key", layer), fmt.Sprintf("past_key_values.%d.value", layer)
}

// PresentNames returns the output names of layer i's cache: present.i.key
// and present.i.value.
func PresentNames(layer int) (key, value string) {
	return fmt.Sprintf("present.%d.key", layer), fmt.Sprintf("present.%d.value", layer)
}

// SeqID names a sequence of a cache. IDs are never reused by one cache.
type SeqID int64

type seq[E Elem] struct {
	cap  int // tokens allocated per head
	n    []int
	k, v [][]E // per layer: [KVHeads][cap][HeadDim]
}

// Cache is a bounded key/value store for many sequences. See the package
// documentation.
type Cache[E Elem] struct {
	cfg  Config
	hd   int // KVHeads*HeadDim
	mu   sync.Mutex
	used int64
	next SeqID
	seqs map[SeqID]*seq[E]
}

// New returns an empty cache for cfg. E must match cfg.DType (float32 for
// Float32, uint16 for Float16).
func New[E Elem](cfg Config) (*Cache[E], error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	var z E
	switch any(z).(type) {
	case float32:
		if cfg.DType != backend.Float32 {
			return nil, fmt.Errorf("%w: Cache[float32] for dtype %v", ErrBadInput, cfg.DType)
		}
	case uint16:
		if cfg.DType != backend.Float16 {
			return nil, fmt.Errorf("%w: Cache[uint16] for dtype %v (uint16 holds float16)", ErrBadInput, cfg.DType)
		}
	}
	return &Cache[E]{cfg: cfg, hd: cfg.KVHeads * cfg.HeadDim, seqs: map[SeqID]*seq[E]{}}, nil
}

// Config returns the cache's configuration.
func (c *Cache[E]) Config() Config { return c.cfg }

// Used returns the bytes the cache has allocated now.
func (c *Cache[E]) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Len returns the number of tokens sequence id holds (those of layer 0).
func (c *Cache[E]) Len(id SeqID) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.get(id)
	if err != nil {
		return 0, err
	}
	return s.n[0], nil
}

// Sequences returns the number of live sequences.
func (c *Cache[E]) Sequences() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seqs)
}

func (c *Cache[E]) get(id SeqID) (*seq[E], error) {
	s, ok := c.seqs[id]
	if !ok {
		return nil, fmt.Errorf("%w: unknown or released sequence %d", ErrBadInput, id)
	}
	return s, nil
}

func (c *Cache[E]) bytes(tokens int) int64 { return int64(tokens) * c.cfg.BytesPerToken() }

// reserve accounts for extra bytes or fails with ErrOverBudget.
func (c *Cache[E]) reserve(extra int64) error {
	if c.cfg.BudgetBytes > 0 && c.used+extra > c.cfg.BudgetBytes {
		return fmt.Errorf("%w: need %d more bytes, %d of %d in use", ErrOverBudget, extra, c.used, c.cfg.BudgetBytes)
	}
	c.used += extra
	return nil
}

func (c *Cache[E]) newSeq(capTokens int) *seq[E] {
	s := &seq[E]{cap: capTokens, n: make([]int, c.cfg.Layers), k: make([][]E, c.cfg.Layers), v: make([][]E, c.cfg.Layers)}
	for l := range s.k {
		s.k[l] = make([]E, capTokens*c.hd)
		s.v[l] = make([]E, capTokens*c.hd)
	}
	return s
}

// Alloc creates an empty sequence with room for capTokens tokens (it grows
// on demand) and returns its id.
func (c *Cache[E]) Alloc(capTokens int) (SeqID, error) {
	if capTokens < 0 || (c.cfg.MaxTokens > 0 && capTokens > c.cfg.MaxTokens) {
		return 0, fmt.Errorf("%w: capacity %d tokens outside [0, MaxTokens=%d]", ErrBadInput, capTokens, c.cfg.MaxTokens)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reserve(c.bytes(capTokens)); err != nil {
		return 0, err
	}
	id := c.next
	c.next++
	c.seqs[id] = c.newSeq(capTokens)
	return id, nil
}

// Release frees sequence id. Releasing an unknown id is an error.
func (c *Cache[E]) Release(id SeqID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.get(id)
	if err != nil {
		return err
	}
	c.used -= c.bytes(s.cap)
	delete(c.seqs, id)
	return nil
}

// grow makes room for need tokens in s, doubling its capacity.
func (c *Cache[E]) grow(s *seq[E], need int) error {
	if need <= s.cap {
		return nil
	}
	if c.cfg.MaxTokens > 0 && need > c.cfg.MaxTokens {
		return fmt.Errorf("%w: sequence would hold %d tokens, MaxTokens is %d", ErrBadInput, need, c.cfg.MaxTokens)
	}
	nc := max(need, 2*s.cap, 16)
	if c.cfg.MaxTokens > 0 {
		nc = min(nc, c.cfg.MaxTokens)
	}
	if err := c.reserve(c.bytes(nc - s.cap)); err != nil {
		return err
	}
	D := c.cfg.HeadDim
	for l := range s.k {
		for _, p := range []*[]E{&s.k[l], &s.v[l]} {
			old := *p
			nw := make([]E, nc*c.hd)
			for h := range c.cfg.KVHeads {
				copy(nw[h*nc*D:h*nc*D+s.n[l]*D], old[h*s.cap*D:h*s.cap*D+s.n[l]*D])
			}
			*p = nw
		}
	}
	s.cap = nc
	return nil
}

// Append adds n tokens to layer of sequence id. k and v hold the new keys
// and values laid out [KVHeads, n, HeadDim]; n is len(k)/(KVHeads*HeadDim).
// They are copied. Layers are appended one by one; every layer of a
// sequence must reach the same length before Gather reads it.
func (c *Cache[E]) Append(id SeqID, layer int, k, v []E) error {
	if layer < 0 || layer >= c.cfg.Layers {
		return fmt.Errorf("%w: layer %d outside [0, %d)", ErrBadInput, layer, c.cfg.Layers)
	}
	if len(k) != len(v) || len(k)%c.hd != 0 {
		return fmt.Errorf("%w: key/value lengths %d/%d are not equal multiples of kv heads × head dim = %d", ErrBadInput, len(k), len(v), c.hd)
	}
	n := len(k) / c.hd
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.get(id)
	if err != nil {
		return err
	}
	return c.appendStrided(s, layer, k, v, n, n, 0)
}

// appendStrided copies tokens [from, from+n) of a [KVHeads, stride,
// HeadDim] block to the end of layer in s.
func (c *Cache[E]) appendStrided(s *seq[E], layer int, k, v []E, stride, n, from int) error {
	if err := c.grow(s, s.n[layer]+n); err != nil {
		return err
	}
	D := c.cfg.HeadDim
	at := s.n[layer]
	for h := range c.cfg.KVHeads {
		dst := h*s.cap*D + at*D
		src := h*stride*D + from*D
		copy(s.k[layer][dst:dst+n*D], k[src:src+n*D])
		copy(s.v[layer][dst:dst+n*D], v[src:src+n*D])
	}
	s.n[layer] += n
	return nil
}

// AppendPresent appends to layer of every sequence in ids the last n
// positions of the model's present outputs: key and value are laid out
// [len(ids), KVHeads, presentLen, HeadDim] (batch row b belongs to ids[b])
// with presentLen = len(key)/(len(ids)*KVHeads*HeadDim). This is the
// per-step update of a decode loop whose model returns past+new in present.
func (c *Cache[E]) AppendPresent(layer int, ids []SeqID, key, value []E, n int) error {
	if layer < 0 || layer >= c.cfg.Layers {
		return fmt.Errorf("%w: layer %d outside [0, %d)", ErrBadInput, layer, c.cfg.Layers)
	}
	B := len(ids)
	if B == 0 || len(key) != len(value) || len(key)%(B*c.hd) != 0 {
		return fmt.Errorf("%w: present lengths %d/%d are not equal multiples of batch %d × kv heads × head dim %d", ErrBadInput, len(key), len(value), B, c.hd)
	}
	T := len(key) / (B * c.hd)
	if n < 0 || n > T {
		return fmt.Errorf("%w: %d new positions of a present of length %d", ErrBadInput, n, T)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if _, err := c.get(id); err != nil {
			return err
		}
	}
	row := T * c.hd
	for b, id := range ids {
		s := c.seqs[id]
		if err := c.appendStrided(s, layer, key[b*row:(b+1)*row], value[b*row:(b+1)*row], T, n, T-n); err != nil {
			return err
		}
	}
	return nil
}

// Gather writes the keys and values of layer for the sequences ids into
// key and value, laid out [len(ids), KVHeads, T, HeadDim] as a past input,
// and returns T, the longest sequence's length. A shorter sequence is
// right-aligned: its first T−len positions are zero (the decode loop masks
// them with attention_mask 0, as left padding). key and value must hold
// at least len(ids)×KVHeads×T×HeadDim elements; use MaxLen to size them.
func (c *Cache[E]) Gather(layer int, ids []SeqID, key, value []E) (int, error) {
	if layer < 0 || layer >= c.cfg.Layers {
		return 0, fmt.Errorf("%w: layer %d outside [0, %d)", ErrBadInput, layer, c.cfg.Layers)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	T := 0
	for _, id := range ids {
		s, err := c.get(id)
		if err != nil {
			return 0, err
		}
		if s.n[layer] != s.n[0] {
			return 0, fmt.Errorf("%w: sequence %d has %d tokens in layer 0 and %d in layer %d (append every layer before gathering)", ErrBadInput, id, s.n[0], s.n[layer], layer)
		}
		T = max(T, s.n[layer])
	}
	need := len(ids) * c.hd * T
	if len(key) < need || len(value) < need {
		return 0, fmt.Errorf("%w: gather buffers of %d/%d elements, need %d", ErrBadInput, len(key), len(value), need)
	}
	D := c.cfg.HeadDim
	for b, id := range ids {
		s := c.seqs[id]
		n := s.n[layer]
		pad := T - n
		for h := range c.cfg.KVHeads {
			dst := (b*c.cfg.KVHeads + h) * T * D
			clear(key[dst : dst+pad*D])
			clear(value[dst : dst+pad*D])
			src := h * s.cap * D
			copy(key[dst+pad*D:dst+T*D], s.k[layer][src:src+n*D])
			copy(value[dst+pad*D:dst+T*D], s.v[layer][src:src+n*D])
		}
	}
	return T, nil
}

// MaxLen returns the length of the longest of the sequences ids.
func (c *Cache[E]) MaxLen(ids []SeqID) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	T := 0
	for _, id := range ids {
		s, err := c.get(id)
		if err != nil {
			return 0, err
		}
		T = max(T, s.n[0])
	}
	return T, nil
}

func (c *Cache[E]) clone(s *seq[E]) *seq[E] {
	d := &seq[E]{cap: s.cap, n: append([]int(nil), s.n...), k: make([][]E, len(s.k)), v: make([][]E, len(s.v))}
	for l := range s.k {
		d.k[l] = append([]E(nil), s.k[l]...)
		d.v[l] = append([]E(nil), s.v[l]...)
	}
	return d
}

// Fork copies sequence src (typically a prefilled prompt) into n-1 new
// sequences and returns n ids: src first, then the copies. It fails without
// changing anything when the copies would exceed the budget.
func (c *Cache[E]) Fork(src SeqID, n int) ([]SeqID, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: fork into %d sequences", ErrBadInput, n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.get(src)
	if err != nil {
		return nil, err
	}
	if err := c.reserve(int64(n-1) * c.bytes(s.cap)); err != nil {
		return nil, err
	}
	ids := []SeqID{src}
	for range n - 1 {
		id := c.next
		c.next++
		c.seqs[id] = c.clone(s)
		ids = append(ids, id)
	}
	return ids, nil
}

// Reorder makes sequence ids[i] hold what sequence ids[parents[i]] held
// before the call, for every i: the beam-search cache update (HF's
// _reorder_cache). A parent chosen by several beams is copied; one chosen
// once is moved without copying. It fails without changing anything on bad
// input or when the copies would exceed the budget.
func (c *Cache[E]) Reorder(ids []SeqID, parents []int) error {
	if len(ids) != len(parents) {
		return fmt.Errorf("%w: %d sequences, %d parents", ErrBadInput, len(ids), len(parents))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := make([]*seq[E], len(ids))
	seen := make(map[SeqID]bool, len(ids))
	for i, id := range ids {
		s, err := c.get(id)
		if err != nil {
			return err
		}
		if seen[id] {
			return fmt.Errorf("%w: sequence %d listed twice", ErrBadInput, id)
		}
		seen[id] = true
		old[i] = s
	}
	uses := make([]int, len(ids))
	for _, p := range parents {
		if p < 0 || p >= len(ids) {
			return fmt.Errorf("%w: parent %d outside [0, %d)", ErrBadInput, p, len(ids))
		}
		uses[p]++
	}
	// bytes: copies of multiply used parents, minus dropped unused ones
	var delta int64
	for i, u := range uses {
		switch {
		case u == 0:
			delta -= c.bytes(old[i].cap)
		case u > 1:
			delta += int64(u-1) * c.bytes(old[i].cap)
		}
	}
	if delta > 0 {
		if err := c.reserve(delta); err != nil {
			return err
		}
	} else {
		c.used += delta
	}
	moved := make([]bool, len(ids))
	for i, p := range parents {
		if !moved[p] {
			moved[p] = true
			c.seqs[ids[i]] = old[p]
		} else {
			c.seqs[ids[i]] = c.clone(old[p])
		}
	}
	return nil
}
