package openaitest

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Paced streams max_tokens token events (with token_ids when asked) and
// [DONE], records each response, and never writes a token before its
// time: token k (from 0) no sooner than TTFT + k × Interval after the
// request arrived. (Tokens keep to that schedule, so the gap from a late
// first token to the last may be shorter than (n − 1) × Interval.)
func TestPacedStreamsRecordsAndPaces(t *testing.T) {
	p := &Paced{TTFT: time.Millisecond, Interval: 2 * time.Millisecond, Tokens: 10}
	hs := httptest.NewServer(p)
	defer hs.Close()
	resp, err := http.Post(hs.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":[7],"max_tokens":4,"return_token_ids":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if l, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, l)
		}
	}
	if len(events) != 5 || events[4] != "[DONE]" || !strings.Contains(events[3], `"text":" w3","token_ids":[3],"finish_reason":"length"`) {
		t.Fatalf("events %q", events)
	}
	r := p.Records()
	if len(r) != 1 || r[0].Tokens != 4 || r[0].Key != "[7]" {
		t.Fatalf("records %+v", r)
	}
	if r[0].First-r[0].Received < p.TTFT.Nanoseconds() || r[0].Last-r[0].Received < (p.TTFT+3*p.Interval).Nanoseconds() {
		t.Errorf("tokens written early: %+v", r[0])
	}
	p.Reset()
	if len(p.Records()) != 0 {
		t.Error("Reset kept records")
	}
}
