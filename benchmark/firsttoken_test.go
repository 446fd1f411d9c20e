package benchmark

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// tokenEvent is one call a tokenLog saw, in order.
type tokenEvent struct {
	first bool // FirstToken, else Complete
	id    loadgen.ResponseID
	data  []byte
}

// tokenLog records FirstToken and Complete calls.
type tokenLog struct{ events []tokenEvent }

func (l *tokenLog) Complete(rs ...loadgen.Response) {
	for _, r := range rs {
		l.events = append(l.events, tokenEvent{false, r.ID, r.Data})
	}
}

func (l *tokenLog) FirstToken(id loadgen.ResponseID, data []byte) {
	l.events = append(l.events, tokenEvent{true, id, slices.Clone(data)})
}

// plainCompleter has no FirstToken.
type plainCompleter struct{ n int }

func (p *plainCompleter) Complete(rs ...loadgen.Response) { p.n += len(rs) }

// answerSUT completes sample i with answers[i]; it counts Flush calls.
type answerSUT struct {
	answers []loadgen.Response
	flushed int
}

func (a *answerSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	out := make([]loadgen.Response, len(samples))
	for i, s := range samples {
		out[i] = a.answers[s.Index]
		out[i].ID = s.ID
	}
	c.Complete(out...)
}

func (a *answerSUT) Flush() { a.flushed++ }

// The first n bytes of each successful response of at least n bytes reach
// FirstToken just before its Complete; a short or failed response sends no
// first token; a completer without FirstToken gets the responses alone;
// Flush reaches the SUT.
func TestFirstTokenSUTReportsTheResponsesFirstID(t *testing.T) {
	inner := &answerSUT{answers: []loadgen.Response{
		{Data: []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}, Tokens: 2},
		{Data: []byte{9, 9, 9}, Tokens: 0},
		{Err: errors.New("failed")},
		{Data: []byte{7, 0, 0, 0, 0, 0, 0, 0}, Tokens: 1},
	}}
	sut := firstTokenSUT{inner, 8}
	var log tokenLog
	sut.IssueQuery(context.Background(), []loadgen.Sample{{ID: 10, Index: 0}, {ID: 11, Index: 1}, {ID: 12, Index: 2}, {ID: 13, Index: 3}}, &log)
	want := []tokenEvent{
		{true, 10, []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{true, 13, []byte{7, 0, 0, 0, 0, 0, 0, 0}},
		{false, 10, inner.answers[0].Data},
		{false, 11, inner.answers[1].Data},
		{false, 12, nil},
		{false, 13, inner.answers[3].Data},
	}
	if len(log.events) != len(want) {
		t.Fatalf("events %+v, want %+v", log.events, want)
	}
	for i := range want {
		if log.events[i].first != want[i].first || log.events[i].id != want[i].id || !slices.Equal(log.events[i].data, want[i].data) {
			t.Errorf("event %d: %+v, want %+v", i, log.events[i], want[i])
		}
	}
	var plain plainCompleter
	sut.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1, Index: 0}}, &plain)
	if plain.n != 1 {
		t.Errorf("a completer without FirstToken got %d responses, want 1", plain.n)
	}
	sut.Flush()
	if inner.flushed != 1 {
		t.Errorf("Flush reached the SUT %d times, want 1", inner.flushed)
	}
}
