package llama2

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

// r2Server serves an R2-style bucket: /metadata/NAME.uri holds the base
// URL of the files, /metadata/NAME.md5 their MD5 list (from sums, which
// may lie), /bucket/NAME/PATH the files. With token set, every request
// must carry it as cf-access-token.
type r2Server struct {
	*httptest.Server
	mu    sync.Mutex        // guards the fields below against the handler
	url   string            // the server's URL
	files map[string][]byte // path under the bucket → bytes
	sums  map[string]string // path → listed MD5 (default: the real one)
	extra string            // extra lines of the MD5 list
	token string
	hits  atomic.Int64 // file downloads
}

func newR2Server(t *testing.T, name string, files map[string][]byte) *r2Server {
	s := &r2Server{files: files, sums: map[string]string{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.token != "" && r.Header.Get("cf-access-token") != s.token {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/metadata/" + name + ".uri":
			fmt.Fprintf(w, "%s/bucket/%s\n", s.url, name)
			return
		case "/metadata/" + name + ".md5":
			var paths []string
			for p := range s.files {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			for i, p := range paths {
				sum := scripttest.MD5Hex(s.files[p])
				if v, ok := s.sums[p]; ok {
					sum = v
				}
				prefix := ""
				if i%2 == 1 {
					prefix = "./" // both spellings occur in R2 lists
				}
				fmt.Fprintf(w, "%s  %s%s\n", sum, prefix, p)
			}
			fmt.Fprint(w, s.extra)
			return
		}
		if p, ok := strings.CutPrefix(r.URL.Path, "/bucket/"+name+"/"); ok {
			if b, ok := s.files[p]; ok {
				s.hits.Add(1)
				w.Write(b)
				return
			}
		}
		http.NotFound(w, r)
	}))
	s.url = s.Server.URL
	t.Cleanup(s.Close)
	return s
}

// set changes the server's state under its lock.
func (s *r2Server) set(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	slices.Sort(names)
	return names
}

const orcaName = "llama-2-70b-open-orca-dataset"

func orcaFiles() map[string][]byte {
	return map[string][]byte{
		"open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz":    []byte("not really the pickle"),
		"open_orca_gpt4_tokenized_llama.calibration_1000.pkl.gz": []byte("not really the calibration pickle"),
	}
}

// runScript runs a script as scripttest.Run does, with the R2 downloader
// told not to log in and no proxy for the local server.
func runScript(t *testing.T, script string, env []string, args ...string) (string, bool) {
	t.Helper()
	return scripttest.Run(t, script, append([]string{"MLC_R2_NO_LOGIN=1", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}, env...), args...)
}

func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv := newR2Server(t, orcaName, orcaFiles())
	env := []string{"OPENORCA_METADATA_URL=" + srv.URL + "/metadata/" + orcaName + ".uri"}
	dir := filepath.Join(t.TempDir(), "open-orca")
	out, ok := runScript(t, "download_dataset.sh", env, dir)
	want := []string{orcaName + ".md5", "open_orca_gpt4_tokenized_llama.calibration_1000.pkl.gz", "open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz"}
	if !ok || !slices.Equal(listDir(t, dir), want) || !strings.Contains(out, "pd.read_pickle('"+dir+"/open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz').to_parquet(") {
		t.Fatalf("ok=%v, files %v:\n%s", ok, listDir(t, dir), out)
	}
	for p, b := range srv.files {
		if got, _ := os.ReadFile(filepath.Join(dir, p)); string(got) != string(b) {
			t.Errorf("%s: bytes differ", p)
		}
	}
	// a second run downloads nothing
	before := srv.hits.Load()
	out, ok = runScript(t, "download_dataset.sh", env, dir)
	if !ok || !strings.Contains(out, "already present") || srv.hits.Load() != before {
		t.Fatalf("second run: ok=%v, hits %d→%d:\n%s", ok, before, srv.hits.Load(), out)
	}
	// verify_dataset.sh: the MD5 list, then mlperf on the parquet
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\n"), 0o755)
	parquet := filepath.Join(dir, "open_orca_gpt4_tokenized_llama.sampled_24576.parquet")
	os.WriteFile(parquet, []byte("PAR1"), 0o644)
	out, ok = runScript(t, "verify_dataset.sh", []string{"MLPERF=" + fake}, parquet)
	if !ok || !strings.Contains(out, "downloaded files match") || !strings.Contains(out, "args: dataset verify openorca --data "+parquet) {
		t.Fatalf("verify: ok=%v:\n%s", ok, out)
	}
	out, ok = runScript(t, "verify_dataset.sh", []string{"MLPERF=" + fake, "OPENORCA_REQUIRE_OFFICIAL=1"}, parquet)
	if !ok || !strings.Contains(out, "--official") {
		t.Fatalf("verify official: ok=%v:\n%s", ok, out)
	}
	os.WriteFile(filepath.Join(dir, "open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz"), []byte("tampered"), 0o644)
	if out, ok = runScript(t, "verify_dataset.sh", []string{"MLPERF=" + fake}, parquet); ok || !strings.Contains(out, "do not match") {
		t.Fatalf("tampered: ok=%v:\n%s", ok, out)
	}
	if out, ok = runScript(t, "verify_dataset.sh", []string{"MLPERF=" + fake}, filepath.Join(dir, "none.parquet")); ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("missing: ok=%v:\n%s", ok, out)
	}
}

func TestDownloadDatasetFailures(t *testing.T) {
	scripttest.NeedDownloader(t)
	for _, tc := range []struct {
		name  string
		setup func(s *r2Server)
		env   []string
		want  string
		files []string // left in the folder
	}{
		{"wrong checksum", func(s *r2Server) {
			s.sums["open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz"] = strings.Repeat("0", 32)
		}, nil, "checksum mismatch for open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz", []string{orcaName + ".md5", "open_orca_gpt4_tokenized_llama.calibration_1000.pkl.gz"}},
		{"no token", func(s *r2Server) { s.token = "secret" }, nil, "MLCommons-approved login", nil},
		{"token", func(s *r2Server) { s.token = "secret" }, []string{"MLC_R2_TOKEN=secret"}, "", []string{orcaName + ".md5", "open_orca_gpt4_tokenized_llama.calibration_1000.pkl.gz", "open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz"}},
		{"unsafe path", func(s *r2Server) { s.extra = strings.Repeat("0", 32) + "  ../evil\n" }, nil, "unsafe path '../evil'", []string{orcaName + ".md5", "open_orca_gpt4_tokenized_llama.calibration_1000.pkl.gz", "open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz"}},
		{"listed file missing", func(s *r2Server) { s.extra = strings.Repeat("0", 32) + "  gone.pkl\n" }, nil, "download of", []string{orcaName + ".md5", "open_orca_gpt4_tokenized_llama.calibration_1000.pkl.gz", "open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newR2Server(t, orcaName, orcaFiles())
			srv.set(func() { tc.setup(srv) })
			env := append([]string{"OPENORCA_METADATA_URL=" + srv.URL + "/metadata/" + orcaName + ".uri"}, tc.env...)
			dir := filepath.Join(t.TempDir(), "d")
			out, ok := runScript(t, "download_dataset.sh", env, dir)
			if ok != (tc.want == "") || !strings.Contains(out, tc.want) {
				t.Fatalf("ok=%v, want failure %q:\n%s", ok, tc.want, out)
			}
			if got := listDir(t, dir); !slices.Equal(got, tc.files) {
				t.Fatalf("files %v, want %v", got, tc.files)
			}
		})
	}
	if out, ok := runScript(t, "download_dataset.sh", []string{"OPENORCA_METADATA_URL=https://example.org/metadata/x.json"}, t.TempDir()); ok || !strings.Contains(out, "does not name a metadata file") {
		t.Fatalf("bad URL: ok=%v:\n%s", ok, out)
	}
}

func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	const name = "llama-2-70b-chat-hf"
	config := `{
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 8192,
  "intermediate_size": 28672,
  "max_position_embeddings": 4096,
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "vocab_size": 32000
}`
	files := map[string][]byte{
		"config.json":                            []byte(config),
		"model-00001-of-00002.safetensors":       []byte("weights 1"),
		"model-00002-of-00002.safetensors":       []byte("weights 2"),
		"tokenizer.model":                        []byte("sentencepiece"),
		"generation_config.json":                 []byte("{}"),
		"model.safetensors.index.json":           []byte("{}"),
		"special_tokens_map.json":                []byte("{}"),
		"tokenizer_config.json":                  []byte("{}"),
		"subfolder/added_tokens_and_notes.jsonl": []byte("{}"),
	}
	srv := newR2Server(t, name, files)
	env := []string{"LLAMA2_METADATA_URL=" + srv.URL + "/metadata/" + name + ".uri"}
	dir := filepath.Join(t.TempDir(), "Llama-2-70b-chat-hf")
	out, ok := runScript(t, "download_model.sh", env, "-d", dir)
	if !ok || !strings.Contains(out, "describes Llama-2-70b") || !strings.Contains(out, "llama2.mlcommons.org") || len(listDir(t, dir)) != len(files)+1 {
		t.Fatalf("ok=%v, files %v:\n%s", ok, listDir(t, dir), out)
	}
	out, ok = runScript(t, "download_model.sh", env, "-d", dir, "-c")
	if !ok || !strings.Contains(out, "match "+name+".md5") || srv.hits.Load() != int64(len(files)) {
		t.Fatalf("check: ok=%v, hits %d:\n%s", ok, srv.hits.Load(), out)
	}
	// a 7B checkpoint is not the benchmark's
	seven := strings.NewReplacer(`"num_hidden_layers": 80`, `"num_hidden_layers": 32`, `"hidden_size": 8192`, `"hidden_size": 4096`).Replace(config)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(seven), 0o644)
	os.Remove(filepath.Join(dir, name+".md5"))
	out, ok = runScript(t, "download_model.sh", env, "-d", dir, "-c")
	if ok || !strings.Contains(out, "num_hidden_layers is '32', Llama-2-70b has 80") || !strings.Contains(out, "is not Llama-2-70b's") {
		t.Fatalf("7b config: ok=%v:\n%s", ok, out)
	}
	// a corrupted download
	srv.set(func() { srv.sums["model-00002-of-00002.safetensors"] = strings.Repeat("f", 32) })
	dir2 := filepath.Join(t.TempDir(), "m")
	out, ok = runScript(t, "download_model.sh", env, "-d", dir2)
	if ok || !strings.Contains(out, "checksum mismatch for model-00002-of-00002.safetensors") {
		t.Fatalf("bad checksum: ok=%v:\n%s", ok, out)
	}
	if slices.ContainsFunc(listDir(t, dir2), func(s string) bool { return strings.HasPrefix(s, "model-00002") }) {
		t.Fatalf("the bad file was left: %v", listDir(t, dir2))
	}
	for _, args := range [][]string{{"-s", "kaggle"}, {"-d", filepath.Join(t.TempDir(), "none"), "-c"}} {
		if out, ok := runScript(t, "download_model.sh", env, args...); ok {
			t.Errorf("%v succeeded:\n%s", args, out)
		}
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := runScript(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Server")
	if ok || !strings.Contains(out, "args: run llama2 --scenario Server") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
