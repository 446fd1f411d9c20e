package openai

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai/openaitest"
)

// timing is a TokenCompleter that keeps when each call came, as the
// loadgen's own completer takes its timestamps (time.Now at the call).
type timing struct {
	mu          sync.Mutex
	first, done map[loadgen.ResponseID]time.Time
	tokens      map[loadgen.ResponseID]int
	err         error
	all         chan struct{}
	want        int
}

func (c *timing) FirstToken(id loadgen.ResponseID, _ []byte) {
	t := time.Now()
	c.mu.Lock()
	c.first[id] = t
	c.mu.Unlock()
}

func (c *timing) Complete(rs ...loadgen.Response) {
	t := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		c.done[r.ID], c.tokens[r.ID] = t, r.Tokens
		if r.Err != nil {
			c.err = r.Err
		}
	}
	if len(c.done) == c.want {
		close(c.all)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// BenchmarkClientOverhead measures what the client adds to TTFT and TPOT
// against an in-process engine (openaitest.Paced) that writes its first
// token 5 ms after a request arrives and then one every 1.6 ms, each
// write timed by the server. Reported medians, per response:
//   - send-us: the sample issued to the request read by the server (the
//     queue, the body, the HTTP write, the server's read);
//   - first-us: the first token written by the server to FirstToken
//     called (reading, parsing, the id lookup);
//   - ttft-excess-us: the TTFT the completer saw less the server's (the
//     two above);
//   - tpot-excess-%: the TPOT the completer saw, (done − first) / (n − 1)
//     as LoadGen computes it, against the server's (last write − first
//     write) / (n − 1).
//
// Cases: ids (the server's token_ids) and text (Chunk over each event's
// text), one request at a time and 16 in flight. Run on a quiet machine:
//
//	go test -run '^$' -bench ClientOverhead -benchtime 50x ./remote/openai
func BenchmarkClientOverhead(b *testing.B) {
	for _, c := range []struct {
		form     Form
		inFlight int
	}{{FormIDs, 1}, {FormText, 1}, {FormIDs, 16}, {FormText, 16}} {
		b.Run(fmt.Sprintf("%v/inflight=%d", c.form, c.inFlight), func(b *testing.B) {
			paced := &openaitest.Paced{TTFT: 5 * time.Millisecond, Interval: 1600 * time.Microsecond, Tokens: 64}
			hs := httptest.NewServer(paced)
			defer hs.Close()
			s, err := New(Config{Endpoints: []string{hs.URL}, Model: "paced", MaxTokens: 64, MaxInFlight: c.inFlight, Form: c.form,
				Prompt: func(i loadgen.SampleIndex) (Prompt, error) {
					return Prompt{IDs: []int32{int32(i)}, Text: "s" + strconv.Itoa(int(i))}, nil
				},
				Encode: wIDs,
				Chunk:  func(text string) []int32 { return []int32{1} }})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var send, first, ttft, tpot []float64
			next := 0
			for b.Loop() {
				paced.Reset()
				c0 := &timing{first: map[loadgen.ResponseID]time.Time{}, done: map[loadgen.ResponseID]time.Time{}, tokens: map[loadgen.ResponseID]int{},
					all: make(chan struct{}), want: c.inFlight}
				samples := make([]loadgen.Sample, c.inFlight)
				for k := range samples {
					samples[k] = loadgen.Sample{ID: loadgen.ResponseID(next), Index: loadgen.SampleIndex(next)}
					next++
				}
				issued := time.Now()
				s.IssueQuery(context.Background(), samples, c0)
				<-c0.all
				if c0.err != nil {
					b.Fatal(c0.err)
				}
				recs := map[string]openaitest.Record{}
				for _, r := range paced.Records() {
					recs[r.Key] = r
				}
				for _, x := range samples {
					key := fmt.Sprintf("[%d]", x.Index)
					if c.form == FormText {
						key = fmt.Sprintf(`"s%d"`, x.Index)
					}
					r, ok := recs[key]
					if !ok || c0.tokens[x.ID] != r.Tokens {
						b.Fatalf("sample %d: server record %+v, %d tokens", x.Index, r, c0.tokens[x.ID])
					}
					f, d := c0.first[x.ID].UnixNano(), c0.done[x.ID].UnixNano()
					send = append(send, float64(r.Received-issued.UnixNano())/1e3)
					first = append(first, float64(f-r.First)/1e3)
					ttft = append(ttft, float64((f-issued.UnixNano())-(r.First-r.Received))/1e3)
					n := float64(r.Tokens - 1)
					tpot = append(tpot, 100*((float64(d-f)/n)/(float64(r.Last-r.First)/n)-1))
				}
			}
			b.ReportMetric(median(send), "send-us")
			b.ReportMetric(median(first), "first-us")
			b.ReportMetric(median(ttft), "ttft-excess-us")
			b.ReportMetric(median(tpot), "tpot-excess-%")
		})
	}
}
