// Command llmclientbench is the two Go sides of scripts/llm-client-bench.sh:
//
//	go run ./cmd/llmclientbench serve -addr 127.0.0.1:0 -ttft 5ms -interval 1.6ms -tokens 128
//
// serves openaitest.Paced (a /v1/completions stream whose tokens leave at
// fixed times, each write timed; GET /stats gives the records) and prints
// "listening on HOST:PORT";
//
//	go run ./cmd/llmclientbench client -endpoint URL -n 20 -form ids
//
// drives it with this suite's client (remote/openai), one request at a
// time, timing FirstToken and Complete as LoadGen does (time.Now at the
// call), and prints one line per request: "ttft_ns tpot_ns tokens", TTFT
// from the sample issued, TPOT = (done − first) / (tokens − 1).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
	"github.com/mlperf-go/inference/remote/openai/openaitest"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: llmclientbench serve|client [flags]")
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatalf("unknown mode %q", os.Args[1])
	}
}

func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	ttft := fs.Duration("ttft", 5*time.Millisecond, "request to first token")
	interval := fs.Duration("interval", 1600*time.Microsecond, "between tokens")
	tokens := fs.Int("tokens", 128, "tokens per response")
	fs.Parse(args)
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", l.Addr())
	log.Fatal(http.Serve(l, &openaitest.Paced{TTFT: *ttft, Interval: *interval, Tokens: *tokens}))
}

// timer is a TokenCompleter keeping the times of one sample's calls.
type timer struct {
	first, done time.Time
	tokens      int
	err         error
	ch          chan struct{}
}

func (t *timer) FirstToken(loadgen.ResponseID, []byte) { t.first = time.Now() }

func (t *timer) Complete(rs ...loadgen.Response) {
	t.done = time.Now()
	t.tokens, t.err = rs[0].Tokens, rs[0].Err
	close(t.ch)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	endpoint := fs.String("endpoint", "", "the paced server's URL")
	n := fs.Int("n", 20, "requests, one at a time")
	tokens := fs.Int("tokens", 128, "max_tokens")
	formName := fs.String("form", "ids", "prompt form: ids (the server's token_ids) or text (ids from each event's text)")
	fs.Parse(args)
	form, err := openai.ParseForm(*formName)
	if err != nil {
		log.Fatal(err)
	}
	s, err := openai.New(openai.Config{Endpoints: []string{*endpoint}, Model: "paced", MaxTokens: *tokens, MaxInFlight: 1, Form: form,
		Prompt: func(i loadgen.SampleIndex) (openai.Prompt, error) {
			return openai.Prompt{IDs: []int32{int32(i)}, Text: "s" + strconv.Itoa(int(i))}, nil
		},
		Encode: func(string) []int32 { return []int32{1} },
		Chunk:  func(string) []int32 { return []int32{1} }})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for i := range *n {
		t := &timer{ch: make(chan struct{})}
		issued := time.Now()
		s.IssueQuery(context.Background(), []loadgen.Sample{{ID: loadgen.ResponseID(i), Index: loadgen.SampleIndex(i)}}, t)
		<-t.ch
		if t.err != nil {
			log.Fatal(t.err)
		}
		fmt.Printf("%d %d %d\n", t.first.Sub(issued).Nanoseconds(), t.done.Sub(t.first).Nanoseconds()/int64(t.tokens-1), t.tokens)
	}
}
