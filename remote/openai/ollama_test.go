package openai

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// depsDir is where make setup installs what the tests need.
func depsDir() string {
	if d := os.Getenv("MLPERF_DEPS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", ".deps")
}

// ollamaBinary finds ollama in the set-up folder or on PATH.
func ollamaBinary() string {
	if p := filepath.Join(depsDir(), "ollama", "ollama"); fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("ollama"); err == nil {
		return p
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startOllama serves a tiny seeded Llama with the real Llama 2 vocabulary
// from a real ollama on a loopback port and returns its address.
func startOllama(t *testing.T, tok *tokenizer.Llama) string {
	bin := ollamaBinary()
	if bin == "" {
		t.Skip("ollama is not installed (make setup installs it into .deps/ollama); skipping the real-engine test")
	}
	dir := t.TempDir()
	f, err := gguf.Llama(gguf.TinyLlama, tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "tiny.gguf")
	out, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(out); err != nil {
		t.Fatal(err)
	}
	out.Close()
	mf := filepath.Join(dir, "Modelfile")
	os.WriteFile(mf, []byte("FROM "+model+"\nTEMPLATE {{ .Prompt }}\nPARAMETER num_ctx 512\n"), 0o644)
	addr := freePort(t)
	env := append(os.Environ(), "OLLAMA_HOST="+addr, "OLLAMA_MODELS="+filepath.Join(dir, "models"), "HOME="+dir, "OLLAMA_NUM_PARALLEL=4")
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, bin, "serve")
	srv.Env = env
	logf, _ := os.Create(filepath.Join(dir, "serve.log"))
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		srv.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			t.Logf("ollama serve log:\n%s", b)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ollama serve did not answer on %s within 60 s", addr)
		}
		time.Sleep(200 * time.Millisecond)
	}
	create := exec.Command(bin, "create", "tiny", "-f", mf)
	create.Env = env
	if b, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create: %v\n%s", err, b)
	}
	return addr
}

func TestRealEngineOllama(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	tok, err := tokenizer.LoadLlama(filepath.Join(depsDir(), "llama2"))
	if err != nil {
		t.Fatalf("the Llama 2 tokenizer data is missing (make setup installs it): %v", err)
	}
	addr := startOllama(t, tok)
	prompts := []string{"The capital of France is", "Write a haiku about the sea.", "1, 2, 3,", "Summarise: the cat sat on the mat."}
	encode := func(s string) []int32 { return tok.Encode(s, false) }
	sut, err := New(Config{Endpoint: addr, Model: "tiny", MaxTokens: 16, MaxInFlight: 4, Timeout: time.Minute,
		Prompt: func(i loadgen.SampleIndex) (string, error) { return prompts[i], nil }, Encode: encode})
	if err != nil {
		t.Fatal(err)
	}
	defer sut.Close()
	if n := sut.Name(); !strings.Contains(n, "tiny") {
		t.Errorf("Name = %q", n)
	}
	for _, sc := range []loadgen.Scenario{loadgen.Offline, loadgen.Server} {
		t.Run(sc.String(), func(t *testing.T) {
			s, err := loadgen.LoadConfigs("llama2-70b", sc, loadgen.AccuracyOnly, "", "", "")
			if err != nil {
				t.Fatal(err)
			}
			s.ServerTargetQPS = 20
			logs := loadgen.DefaultLogSettings()
			logs.OutDir = t.TempDir()
			qsl := &loadgentest.MemQSL{Total: len(prompts), Performance: len(prompts)}
			res, err := loadgen.Run(context.Background(), sut, qsl, s, logs)
			if err != nil {
				t.Fatal(err)
			}
			if res.FailedSamples > 0 {
				t.Fatalf("%d samples failed", res.FailedSamples)
			}
			seen := map[uint64][]int32{}
			_, err = accuracy.ReadUnique(filepath.Join(logs.OutDir, "mlperf_log_accuracy.json"), func(e accuracy.Entry) error {
				ids, err := accuracy.Decode(e.Data, accuracy.Int32)
				if err != nil {
					return err
				}
				if len(ids) == 0 || len(ids) > 64 {
					return fmt.Errorf("sample %d: %d tokens", e.QSLIdx, len(ids))
				}
				for _, v := range ids {
					seen[e.QSLIdx] = append(seen[e.QSLIdx], int32(v))
				}
				if sc == loadgen.Server && (!e.HasTokens || e.TokenCount != len(ids)) {
					return fmt.Errorf("sample %d: token_count %d for %d ids", e.QSLIdx, e.TokenCount, len(ids))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != len(prompts) {
				t.Fatalf("%d samples in the accuracy log, want %d", len(seen), len(prompts))
			}
			// Greedy decoding is deterministic: a direct request gives the same text.
			again, err := sut.complete(job{ctx: context.Background(), s: loadgen.Sample{Index: 0}, c: discard{}})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(again) != fmt.Sprint(seen[0]) {
				t.Errorf("greedy output of prompt 0 differs between calls: %v vs %v", again, seen[0])
			}
		})
	}
}

type discard struct{}

func (discard) Complete(...loadgen.Response) {}
