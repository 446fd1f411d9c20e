package badinput

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2014"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/internal/outlock"
	"github.com/mlperf-go/inference/internal/redact"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/openai"
	"github.com/mlperf-go/inference/submission"
)

// round3Cases are the classes of the third audit: request and answer
// bodies without bounds on both sides of the KServe and OpenAI seams,
// credentials in messages, conf files that are devices or pipes, logs on
// a full disk, a held output folder, runs and flags that do nothing, and
// data files damaged in ways the reference's readers refuse (a gzip CRC,
// a parquet page, NaN values, ids outside their tables, annotation
// files pycocotools cannot score).
func round3Cases() []badCase {
	var cs []badCase
	resnet := []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 3, 224, 224}}}
	served := func(t *testing.T, maxBatch int) string {
		s := kserve.NewServer("n", "1")
		s.MaxBatch, s.BodyWait = maxBatch, 200*time.Millisecond
		if err := s.Add("m", &kserve.NullSession{In: resnet, Out: []backend.Info{{Name: "y", DType: backend.Int64, Shape: []int64{-1}}}}, 1); err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		return strings.TrimPrefix(hs.URL, "http://")
	}
	// post sends head (and up to send bytes of zeros after it) and makes
	// the server's refusal the case's error (nil: it was served).
	post := func(addr, head string, send int) error {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Minute))
		io.WriteString(c, head)
		go func() {
			buf := make([]byte, 16<<10)
			for n := 0; n < send; n += len(buf) {
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return fmt.Errorf("no answer: %w", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	const infer = "POST /v2/models/m/infer HTTP/1.1\r\nHost: n\r\n"
	cs = append(cs,
		badCase{name: "serve: a body claiming 1 GiB", want: "HTTP 413", run: func(t *testing.T) error {
			return post(served(t, 1), infer+"Content-Length: 1073741824\r\n\r\n", 0)
		}},
		badCase{name: "serve: a body claiming 2^62 bytes", want: "HTTP 413", run: func(t *testing.T) error {
			return post(served(t, 1), infer+"Content-Length: 4611686018427387904\r\n\r\n", 0)
		}},
		badCase{name: "serve: 600 MB sent", want: "HTTP 413", run: func(t *testing.T) error {
			return post(served(t, 1), infer+"Content-Length: 600000000\r\n\r\n", 600e6)
		}},
		badCase{name: "serve: an endless chunked body", want: "runs past", run: func(t *testing.T) error {
			return post(served(t, 1), infer+"Transfer-Encoding: chunked\r\n\r\n4000\r\n"+strings.Repeat("0", 0x4000)+"\r\n4000\r\n"+strings.Repeat("0", 0x4000)+"\r\n"+
				strings.Repeat("4000\r\n"+strings.Repeat("0", 0x4000)+"\r\n", 64), 0)
		}},
		badCase{name: "serve: a body that stops arriving", want: "HTTP 408", run: func(t *testing.T) error {
			return post(served(t, 1), infer+"Content-Length: 1000\r\n\r\n{", 0)
		}},
		badCase{name: "serve: a batch over --max-batch", want: "this node takes at most 2 per request", run: func(t *testing.T) error {
			js := `{"inputs":[{"name":"x","shape":[3,3,224,224],"datatype":"FP32","parameters":{"binary_data_size":0}}]}`
			return post(served(t, 2), infer+fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(js), js), 0)
		}},
		badCase{name: "serve: a 10^9 batch of empty samples", want: "the request carries 1000000000 samples", run: func(t *testing.T) error {
			js := `{"inputs":[{"name":"x","shape":[1000000000,3,224,0],"datatype":"FP32","data":[]}]}`
			return post(served(t, 2), infer+fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(js), js), 0)
		}},
		badCase{name: "serve: a zero-dimension model", want: "a dimension of 0", run: func(t *testing.T) error {
			return kserve.NewServer("n", "1").Add("m", &kserve.NullSession{In: []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 0}}}}, 1)
		}},
	)
	// A KServe server that answers without bounds.
	rawServer := func(t *testing.T, answer string, endless string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					br := bufio.NewReader(c)
					for {
						req, err := http.ReadRequest(br)
						if err != nil {
							return
						}
						io.Copy(io.Discard, req.Body)
						if req.Method == http.MethodGet {
							meta := `{"name":"m","inputs":[{"name":"x","datatype":"FP32","shape":[-1,3]}],"outputs":[{"name":"y","datatype":"FP32","shape":[-1,3]}]}`
							fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(meta), meta)
							continue
						}
						io.WriteString(c, answer)
						for endless != "" {
							if _, err := io.WriteString(c, endless); err != nil {
								return
							}
						}
					}
				}()
			}
		}()
		return ln.Addr().String()
	}
	client := func(answer, endless string) func(t *testing.T) error {
		return func(t *testing.T) error {
			s, err := kserve.Dial(context.Background(), kserve.Config{Endpoint: rawServer(t, answer, endless), Model: "m", Timeout: time.Minute})
			if err != nil {
				return err
			}
			defer s.Close()
			_, err = s.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}})
			return err
		}
	}
	cs = append(cs,
		badCase{name: "kserve client: an answer claiming 3 GiB", want: "it claims 3221225472 bytes", run: client("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 9\r\nContent-Length: 3221225472\r\n\r\n", "")},
		badCase{name: "kserve client: an answer claiming 2 GiB, chunked", want: "its chunks run past", run: client("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n80000000\r\n", strings.Repeat("x", 1<<16))},
		badCase{name: "kserve client: an endless chunked answer", want: "its chunks run past", run: client("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "1000\r\n"+strings.Repeat("x", 0x1000)+"\r\n")},
		badCase{name: "kserve client: an endless answer ended by the close", want: "it runs past", run: client("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", strings.Repeat("x", 1<<16))},
		badCase{name: "kserve client: a header without end", want: "header is over", run: client("HTTP/1.1 200 OK\r\n", "X-A: b\r\n")},
		badCase{name: "kserve client: an unsupported datatype", want: "serve a model whose inputs and outputs use those", run: func(t *testing.T) error {
			_, err := kserve.ParseDatatype("FP64")
			return err
		}},
	)
	// An OpenAI-compatible server whose streams have no end.
	stream := func(key string, body func(w http.ResponseWriter, r *http.Request)) func(t *testing.T) error {
		return func(t *testing.T) error {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" {
					io.WriteString(w, `{"data":[{"id":"m"}]}`)
					return
				}
				body(w, r)
			}))
			defer hs.Close()
			s, err := openai.New(openai.Config{Endpoints: []string{hs.URL}, Model: "m", APIKey: key, MaxTokens: 8, Timeout: time.Minute,
				Prompt: func(loadgen.SampleIndex) (openai.Prompt, error) { return openai.Prompt{Text: "p"}, nil }, Encode: func(string) []int32 { return []int32{1} }})
			if err != nil {
				return err
			}
			defer s.Close()
			rec := loadgentest.NewRecorder()
			s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1}}, rec)
			return rec.Wait(1)[1].Err // a hang is the runner's to report
		}
	}
	endless := func(unit string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, unit); err != nil {
					return
				}
			}
		}
	}
	cs = append(cs,
		badCase{name: "openai: a 100 MB token", want: "a streamed line runs past", run: stream("", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `data: {"choices":[{"text":"`)
			endless(strings.Repeat("a", 1<<20))(w, r)
		})},
		badCase{name: "openai: a line without end", want: "a streamed line runs past", run: stream("", endless(strings.Repeat("a", 4096)))},
		badCase{name: "openai: tokens without end", want: "without [DONE]", run: stream("", endless("data: {\"choices\":[{\"text\":\"w\"}]}\n\n"))},
		badCase{name: "openai: a 401 echoing the API key", want: "xxxxx", run: stream("sk-secret-key-123", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "bad key "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		})},
		badCase{name: "openai: a 2e9 max_tokens request to mlperf serve", want: "max_tokens 2000000000: want 1 to 4096", run: func(t *testing.T) error {
			hs := httptest.NewServer(openai.NewHandler("m", nil))
			defer hs.Close()
			resp, err := http.Post(hs.URL+"/v1/completions", "application/json", strings.NewReader(`{"model":"m","prompt":"x","max_tokens":2000000000}`))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			return errors.New(string(b))
		}},
		badCase{name: "endpoint: a password in a malformed URL", want: "xxxxx", run: func(t *testing.T) error {
			err := kserve.CheckEndpoint("http://user:hunter22@bad host:1", "")
			if err != nil && strings.Contains(err.Error(), "hunter22") {
				return nil // the password leaked: counted as accepted
			}
			return err
		}},
		badCase{name: "endpoint: a password over gRPC", want: "sends no credentials", run: func(t *testing.T) error {
			err := kserve.CheckEndpoint("grpc://user:hunter22@host:1", "grpc")
			if err != nil && strings.Contains(err.Error(), "hunter22") {
				return nil
			}
			return err
		}},
		badCase{name: "endpoint: redact keeps the user, masks the password", want: "xxxxx", run: func(t *testing.T) error {
			if r := redact.URL("http://u:p4ss@h:1"); r != "http://u:p4ss@h:1" {
				return errors.New(r)
			}
			return nil
		}},
	)
	// Conf files that are not small regular files.
	conf := func(name, want string, path func(t *testing.T) string) badCase {
		return badCase{name: "user.conf: " + name, want: want, run: func(t *testing.T) error {
			_, err := loadgen.LoadConfigs("resnet50", loadgen.SingleStream, loadgen.PerformanceOnly, "", path(t), "")
			return err
		}}
	}
	cs = append(cs,
		conf("/dev/zero", "a character device", func(*testing.T) string { return "/dev/zero" }),
		conf("a FIFO without a writer", "a named pipe (FIFO)", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			return p
		}),
		conf("2 MiB", "such a file is at most 1048576", func(t *testing.T) string { return write(t, "user.conf", make([]byte, 2<<20)) }),
		conf("a folder", "a folder", func(t *testing.T) string { return t.TempDir() }),
		badCase{name: "audit.config: /dev/zero", want: "a character device", run: func(t *testing.T) error {
			_, err := loadgen.LoadConfigs("resnet50", loadgen.SingleStream, loadgen.PerformanceOnly, "", "", "/dev/zero")
			return err
		}},
		badCase{name: "submission --system: /dev/zero", want: "a character device", run: func(t *testing.T) error {
			_, _, err := submission.ReadSystem("/dev/zero")
			return err
		}},
		badCase{name: "submission --system: a JSON array", want: "not a system description JSON object", run: func(t *testing.T) error {
			_, _, err := submission.ReadSystem(write(t, "box.json", []byte(`[{"system_type": "edge"}]`)))
			return err
		}},
	)
	// Logs that cannot be written; a folder another run holds.
	cs = append(cs,
		badCase{name: "logs: the summary on a full disk", want: "no space left on device", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := os.Symlink("/dev/full", filepath.Join(dir, "mlperf_log_summary.txt")); err != nil {
				t.Skip(err)
			}
			s, _ := loadgen.LoadConfigs("resnet50", loadgen.Offline, loadgen.AccuracyOnly, "", "", "")
			_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 8, Performance: 8}, s, loadgen.LogSettings{OutDir: dir})
			return err
		}},
		badCase{name: "logs: the detail log on a full disk", want: "mlperf_log_detail.txt", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := os.Symlink("/dev/full", filepath.Join(dir, "mlperf_log_detail.txt")); err != nil {
				t.Skip(err)
			}
			s, _ := loadgen.LoadConfigs("resnet50", loadgen.Offline, loadgen.AccuracyOnly, "", "", "")
			_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 8, Performance: 8}, s, loadgen.LogSettings{OutDir: dir})
			return err
		}},
		badCase{name: "--out held by another run", want: "held by another run", run: func(t *testing.T) error {
			dir := t.TempDir()
			l, err := outlock.Acquire(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			l2, err := outlock.Acquire(dir)
			if err == nil {
				l2.Release()
			}
			return err
		}},
	)
	// Flags that would do nothing.
	bench := &spec.Benchmark{Name: "echo", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
	opts := func(name, want string, mutate func(o *benchmark.Options)) badCase {
		return badCase{name: "run options: " + name, want: want, run: func(t *testing.T) error {
			o := benchmark.Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: "d", Backend: "cpu"}
			mutate(&o)
			return o.Validate(bench)
		}}
	}
	cs = append(cs,
		opts("--workers 100000", "more concurrent inference calls than this machine can run", func(o *benchmark.Options) { o.Workers = 100000 }),
		opts("--workers 100000 over kserve", "at most 1024 each", func(o *benchmark.Options) {
			o.Backend, o.Endpoints, o.Workers = "kserve", []string{"127.0.0.1:1"}, 100000
		}),
		opts("--served-model with a local backend", "--served-model needs --backend kserve, openai or sglang", func(o *benchmark.Options) { o.ServedModel = "m" }),
		opts("--api-key-env with a local backend", "--api-key-env needs --backend kserve, openai or sglang", func(o *benchmark.Options) { o.APIKeyEnv = "HOME" }),
		opts("--user-conf a FIFO", "a named pipe (FIFO)", func(o *benchmark.Options) {
			p := filepath.Join(os.TempDir(), fmt.Sprintf("badinput-fifo-%d", os.Getpid()))
			os.Remove(p)
			syscall.Mkfifo(p, 0o644)
			o.UserConf = p
		}),
		badCase{name: "batch: 20000 ResNet50 samples × 4.6 MiB", want: "samples fit at once", run: func(*testing.T) error {
			_, err := backend.CheckBatchMemory("--batch 20000", 20000, backend.WorkingFactor*backend.SampleBytes(resnet))
			return err
		}},
	)
	// Data files damaged in ways the reference's readers refuse.
	cs = append(cs,
		badCase{name: "nifti: a gzip CRC that does not match", want: "does not match the data (Python's gzip refuses it", run: func(t *testing.T) error {
			h := make([]byte, 352)
			binary.LittleEndian.PutUint32(h, 348)
			binary.LittleEndian.PutUint16(h[40:], 1)
			binary.LittleEndian.PutUint16(h[42:], 2)
			binary.LittleEndian.PutUint16(h[70:], 4)
			binary.LittleEndian.PutUint16(h[72:], 16)
			binary.LittleEndian.PutUint32(h[108:], math.Float32bits(352))
			copy(h[344:], "n+1\x00")
			h = append(h, 1, 0, 2, 0)
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(h)
			zw.Close()
			b := gz.Bytes()
			b[len(b)-8] ^= 0xff
			_, err := preprocess.LoadNifti(write(t, "imaging.nii.gz", b))
			return err
		}},
		badCase{name: "openimages: an image id given twice", want: "image id 1 is given to both", run: annotations(&cocojson.GroundTruth{
			Images:     []cocojson.Image{{ID: 1, FileName: "a.jpg"}, {ID: 1, FileName: "b.jpg"}},
			Categories: []cocojson.Category{{ID: 0, Name: openimages.ClassNames[0]}}, Annotations: []cocojson.Annotation{{ID: 1, ImageID: 1, CategoryID: 0}}})},
		badCase{name: "openimages: a category outside the MLPerf set", want: "outside the 264 MLPerf OpenImages classes", run: annotations(&cocojson.GroundTruth{
			Images:     []cocojson.Image{{ID: 1, FileName: "a.jpg"}},
			Categories: []cocojson.Category{{ID: 0, Name: openimages.ClassNames[0]}, {ID: 900, Name: "Spaceship"}}, Annotations: []cocojson.Annotation{{ID: 1, ImageID: 1, CategoryID: 0}}})},
		badCase{name: "openimages: no annotation of an MLPerf class", want: "nothing can be scored", run: annotations(&cocojson.GroundTruth{
			Images:     []cocojson.Image{{ID: 1, FileName: "a.jpg"}},
			Categories: []cocojson.Category{{ID: 900, Name: "Spaceship"}}, Annotations: []cocojson.Annotation{{ID: 1, ImageID: 1, CategoryID: 900}}})},
		badCase{name: "criteo: a NaN dense feature", want: "dense feature 0 is NaN", run: criteoCase(func(t *testing.T, dir string) {
			patchNpy(t, filepath.Join(dir, criteo.DenseFile), 0, math.Float32bits(float32(math.NaN())))
		})},
		badCase{name: "criteo: an id outside its table", want: "is outside its table of 40000000 rows", run: criteoCase(func(t *testing.T, dir string) {
			path := filepath.Join(dir, criteo.SparseFile)
			zr, err := zip.OpenReader(path)
			if err != nil {
				t.Fatal(err)
			}
			off, err := zr.File[0].DataOffset()
			zr.Close()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			hl := int(binary.LittleEndian.Uint16(b[off+8:]))
			binary.LittleEndian.PutUint32(b[off+10+int64(hl):], 0x7fffffff)
			os.WriteFile(path, b, 0o644)
		})},
		badCase{name: "coco2014: a NaN latent", want: "every image would come out NaN", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := coco2014.Synth(dir, coco2014.SynthConfig{N: 2}); err != nil {
				t.Fatal(err)
			}
			patchNpy(t, filepath.Join(dir, coco2014.LatentsFile), 5, math.Float32bits(float32(math.NaN())))
			_, _, err := coco2014.LoadLatents(dir)
			return err
		}},
	)
	return cs
}

// annotations is a case that refuses a ground truth CheckAnnotations
// finds faults in.
func annotations(gt *cocojson.GroundTruth) func(*testing.T) error {
	return func(*testing.T) error {
		if p := openimages.CheckAnnotations(gt); len(p) > 0 {
			return errors.New(strings.Join(p, "; "))
		}
		return nil
	}
}

// criteoCase synthesises a small day, lets damage change it, and checks
// every row as the DLRM QSL does when it loads samples.
func criteoCase(damage func(t *testing.T, dir string)) func(*testing.T) error {
	return func(t *testing.T) error {
		dir := t.TempDir()
		if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 8, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		damage(t, dir)
		ds, err := criteo.Open(dir, criteo.Options{WholeDay: true})
		if err != nil {
			return err
		}
		defer ds.Close()
		return ds.CheckRows(0, ds.FileRows)
	}
}

// patchNpy overwrites float32 (or int32) element i of an .npy file.
func patchNpy(t *testing.T, path string, i int, bits uint32) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:]))
	binary.LittleEndian.PutUint32(b[10+hl+4*i:], bits)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
