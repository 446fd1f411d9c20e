package badinput

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/datasets/coco2014"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/internal/argcheck"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/preprocess"
)

// badCase is one bad input or fault. run returns the error the library
// gave (nil means it accepted the input). want, when set, must appear in
// the message: the class of problem, named for a person.
type badCase struct {
	name string
	want string
	run  func(t *testing.T) error
}

// outcome of one case.
type outcome int

const (
	refused outcome = iota
	accepted
	panicked
	hung
)

const hangLimit = 20 * time.Second

func runCase(t *testing.T, c badCase) (outcome, error) {
	type res struct {
		err error
		pan any
	}
	ch := make(chan res, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- res{pan: p}
			}
		}()
		ch <- res{err: c.run(t)}
	}()
	select {
	case r := <-ch:
		switch {
		case r.pan != nil:
			return panicked, fmt.Errorf("panic: %v", r.pan)
		case r.err == nil:
			return accepted, nil
		}
		return refused, r.err
	case <-time.After(hangLimit):
		return hung, nil
	}
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// confCase applies one user.conf text for resnet50 in SingleStream.
func confCase(name, text, want string) badCase {
	return badCase{name: "user.conf: " + name, want: want, run: func(t *testing.T) error {
		s := loadgen.DefaultSettings()
		return s.ApplyConf([]byte(text), "user.conf", "resnet50", loadgen.UserConfKind)
	}}
}

// warnCase passes when the conf is accepted with a warning (LoadGen's
// semantics: ignored) and fails when it is silently accepted.
func warnCase(name, text, want string) badCase {
	return badCase{name: "user.conf warns: " + name, want: want, run: func(t *testing.T) error {
		s := loadgen.DefaultSettings()
		if err := s.ApplyConf([]byte(text), "user.conf", "resnet50", loadgen.UserConfKind); err != nil {
			return err
		}
		if w := s.Warnings(); len(w) > 0 {
			return errors.New(strings.Join(w, "; "))
		}
		return nil
	}}
}

// runLG runs the loadgen with a user.conf and returns its error, or an
// error made from the INVALID reasons of the result (an INVALID result is
// a refusal: it is reported, not silent).
func runLG(t *testing.T, sc loadgen.Scenario, mode loadgen.Mode, conf string, sut loadgen.SUT, qsl loadgen.QSL, ctx context.Context, tweak func(*loadgen.Settings)) error {
	p := write(t, "user.conf", []byte(conf))
	s, err := loadgen.LoadConfigs("resnet50", sc, mode, "", p, "")
	if err != nil {
		return err
	}
	if tweak != nil {
		tweak(&s)
	}
	res, err := loadgen.Run(ctx, sut, qsl, s, loadgen.LogSettings{OutDir: t.TempDir()})
	if err != nil {
		return err
	}
	if !res.Valid {
		return errors.New("INVALID: " + strings.Join(res.InvalidReasons, "; "))
	}
	return nil
}

func lgCase(name, want string, sc loadgen.Scenario, conf string, total, perf int) badCase {
	return badCase{name: "loadgen: " + name, want: want, run: func(t *testing.T) error {
		return runLG(t, sc, loadgen.PerformanceOnly, conf, &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: total, Performance: perf}, context.Background(), func(s *loadgen.Settings) { s.MaxScheduleBytes = 1 << 30 })
	}}
}

func hexLog(entries ...[]byte) []byte {
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%X" }`, i, i, e)
	}
	b.WriteString("\n]\n")
	return []byte(b.String())
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func npyFile(descr, shape string, data []byte) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(append(b, h...), data...)
}

func niftiHeader(mut func([]byte)) []byte {
	h := make([]byte, 352)
	binary.LittleEndian.PutUint32(h, 348)
	binary.LittleEndian.PutUint16(h[40:], 3)
	for i := 0; i < 3; i++ {
		binary.LittleEndian.PutUint16(h[42+2*i:], 2)
	}
	binary.LittleEndian.PutUint16(h[70:], 4) // int16
	binary.LittleEndian.PutUint32(h[108:], 0x43b00000)
	copy(h[344:], "n+1\x00")
	if mut != nil {
		mut(h)
	}
	return append(h, make([]byte, 16)...)
}

func cases() []badCase {
	var cs []badCase
	// user.conf values outside their ranges (LoadGen would misread them).
	for _, c := range []struct{ name, text, want string }{
		{"min_duration overflows 64 bits", "*.*.min_duration = 99999999999999999999", "milliseconds"},
		{"min_duration 2^64-1 (overflows ns)", "*.*.min_duration = 18446744073709551615", "milliseconds"},
		{"negative min_duration", "*.*.min_duration = -5", "milliseconds"},
		{"negative min_query_count", "*.*.min_query_count = -1", "integer"},
		{"fractional min_query_count", "*.*.min_query_count = 2.5", "integer"},
		{"huge max_query_count", "*.*.max_query_count = 1e30", "integer"},
		{"percentile 250", "*.SingleStream.target_latency_percentile = 250", "percentile"},
		{"percentile 0", "*.Server.target_latency_percentile = 0", "percentile"},
		{"percentile negative", "*.MultiStream.target_latency_percentile = -90", "percentile"},
		{"percentile NaN", "*.Server.target_latency_percentile = nan", "percentile"},
		{"negative QPS", "*.Server.target_qps = -100", "0 or above"},
		{"infinite QPS", "*.Offline.target_qps = inf", "finite"},
		{"NaN QPS", "*.Offline.target_qps = nan", "finite"},
		{"negative target latency", "*.SingleStream.target_latency = -10", "milliseconds"},
		{"infinite target latency", "*.SingleStream.target_latency = inf", "milliseconds"},
		{"flag 2", "*.*.performance_issue_unique = 2", "0 or 1"},
		{"flag -1", "*.*.sample_concatenate_permutation = -1", "0 or 1"},
		{"mode 7", "*.*.mode = 7", "want 0"},
		{"mode -1", "*.*.mode = -1", "want 0"},
		{"sampling target 0.5", "*.*.accuracy_log_sampling_target = 0.5", "integer"},
		{"negative issue-same index", "*.*.performance_issue_same_index = -3", "integer"},
		{"negative samples_per_query", "*.MultiStream.samples_per_query = -8", "integer"},
		{"negative max_async_queries", "*.Server.max_async_queries = -1", "integer"},
		{"huge sample count override", "*.*.performance_sample_count_override = 1e19", "integer"},
		{"ttft negative", "*.Server.ttft_latency = -1", "milliseconds"},
		{"missing =", "*.*.min_duration 10", "want `model.scenario.key = value`"},
		{"no spaces", "*.*.min_duration=10", "want `model.scenario.key = value`"},
		{"two-part key", "min_duration = 10", "not of the form"},
		{"word value", "*.*.min_duration = ten", "not a number"},
		{"trailing token", "*.*.min_duration = 10 20", "want `model.scenario.key = value`"},
		{"underscore number", "*.*.min_query_count = 1_000", "not a number"},
		{"empty value", "*.*.min_duration =", "want `model.scenario.key = value`"},
		{"hex garbage", "*.*.min_query_count = 0xZZ", "not a number"},
	} {
		cs = append(cs, confCase(c.name, c.text+"\n", c.want))
	}
	for _, c := range []struct{ name, text, want string }{
		{"misspelled key", "*.*.min_durration = 10", "unknown key"},
		{"misspelled model", "resnet.Offline.target_qps = 10", "unknown model"},
		{"misspelled scenario", "*.Singlestream.target_latency = 10", "unknown scenario"},
		{"seed in user.conf", "*.*.qsl_rng_seed = 1", "mlperf.conf only"},
		{"probability in user.conf", "*.*.accuracy_log_probability = 10", "mlperf.conf only"},
	} {
		cs = append(cs, warnCase(c.name, c.text+"\n", c.want))
	}
	cs = append(cs,
		badCase{name: "user.conf: byte-order mark keeps the first line", want: "min_query_count 7", run: func(t *testing.T) error {
			s := loadgen.DefaultSettings()
			if err := s.ApplyConf([]byte("\ufeff*.*.min_query_count = 7\n"), "user.conf", "resnet50", loadgen.UserConfKind); err != nil {
				return err
			}
			if s.MinQueryCount == 7 {
				return errors.New("min_query_count 7 applied (the BOM was skipped)")
			}
			return nil
		}},
		badCase{name: "audit.config: sampling target 0.5", want: "integer", run: func(t *testing.T) error {
			s := loadgen.DefaultSettings()
			_, err := s.ApplyAuditConfig(write(t, "audit.config", []byte("*.*.accuracy_log_sampling_target = 0.5\n")))
			return err
		}},
		badCase{name: "audit.config: issue-same index on a 64-sample data set", want: "performance_issue_same_index", run: func(t *testing.T) error {
			s := loadgen.DefaultSettings()
			s.MinDurationMs, s.MinQueryCount = 0, 10
			if _, err := s.ApplyAuditConfig(write(t, "audit.config", []byte("*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 100\n"))); err != nil {
				return err
			}
			_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 64, Performance: 1024}, s, loadgen.LogSettings{OutDir: t.TempDir()})
			return err
		}},
	)
	// Loadgen settings that cannot run, or schedules that cannot fit.
	for _, sc := range []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline} {
		cs = append(cs, lgCase(sc.String()+" issue-same index past the loaded set", "performance_issue_same_index", sc,
			"*.*.min_duration = 0\n*.*.min_query_count = 10\n*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 100\n", 64, 1024))
	}
	cs = append(cs,
		lgCase("Offline 1e12 QPS for 1 s", "GiB", loadgen.Offline, "*.*.min_duration = 1000\n*.Offline.target_qps = 1e12\n", 1024, 1024),
		lgCase("Server 1e8 QPS for 1 s", "GiB", loadgen.Server, "*.*.min_duration = 1000\n*.Server.target_qps = 1e8\n", 1024, 1024),
		lgCase("Server 1e6 QPS for 1 h", "GiB", loadgen.Server, "*.*.min_duration = 3600000\n*.Server.target_qps = 1e6\n", 1024, 1024),
		lgCase("SingleStream 1 ns latency for 10 s", "GiB", loadgen.SingleStream, "*.*.min_duration = 10000\n*.SingleStream.target_latency = 0.000001\n", 1024, 1024),
		lgCase("min_query_count 9e18", "GiB", loadgen.SingleStream, "*.*.min_query_count = 9000000000000000000\n", 1024, 1024),
		lgCase("MultiStream 1e9 samples per query", "GiB", loadgen.MultiStream, "*.*.min_duration = 0\n*.*.min_query_count = 1000\n*.MultiStream.samples_per_query = 1000000000\n", 1024, 1024),
		lgCase("no duration and no query count", "min_query_count", loadgen.SingleStream, "*.*.min_duration = 0\n*.*.min_query_count = 0\n", 1024, 1024),
		lgCase("QSL of 0 samples", "at least one", loadgen.Offline, "", 0, 0),
		lgCase("performance sample count 0", "performance_sample_count", loadgen.Offline, "*.*.performance_sample_count_override = 0\n", 10, 0),
		lgCase("MultiStream 0 samples per query", "samples_per_query", loadgen.MultiStream, "*.MultiStream.samples_per_query = 0\n", 10, 10),
		lgCase("SingleStream target latency 0", "target_latency", loadgen.SingleStream, "*.SingleStream.target_latency = 0\n", 10, 10),
		badCase{name: "loadgen: find-peak outside Server", want: "find-peak", run: func(t *testing.T) error {
			return runLG(t, loadgen.Offline, loadgen.FindPeakPerformance, "", &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 8, Performance: 8}, context.Background(), nil)
		}},
		badCase{name: "loadgen: QSL fails to load (corrupt JPEG)", want: "corrupt", run: func(t *testing.T) error {
			return runLG(t, loadgen.Offline, loadgen.PerformanceOnly, "", &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 8, Performance: 8, LoadErr: errors.New("corrupt JPEG")}, context.Background(), nil)
		}},
		badCase{name: "loadgen: SUT never completes", want: "completion timeout", run: func(t *testing.T) error {
			return runLG(t, loadgen.SingleStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 5\n", &loadgentest.DelaySUT{Never: true}, &loadgentest.MemQSL{Total: 8, Performance: 8}, context.Background(), func(s *loadgen.Settings) { s.CompletionTimeout = 100 * time.Millisecond })
		}},
		badCase{name: "loadgen: SUT fails every sample", want: "error", run: func(t *testing.T) error {
			return runLG(t, loadgen.Offline, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 5\n", &loadgentest.NullSUT{Fail: func(loadgen.Sample) error { return errors.New("boom") }}, &loadgentest.MemQSL{Total: 8, Performance: 8}, context.Background(), nil)
		}},
	)
	for _, sc := range []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Server, loadgen.Offline} {
		for _, mode := range []loadgen.Mode{loadgen.PerformanceOnly, loadgen.AccuracyOnly} {
			cs = append(cs, badCase{name: fmt.Sprintf("loadgen: %v %v interrupted, 1 h service time", sc, mode), want: "interrupted", run: func(t *testing.T) error {
				sut := &loadgentest.DelaySUT{ServiceTime: time.Hour}
				defer sut.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				return runLG(t, sc, mode, "*.*.min_duration = 0\n*.*.min_query_count = 10\n*.MultiStream.samples_per_query = 2\n", sut, &loadgentest.MemQSL{Total: 16, Performance: 16}, ctx, nil)
			}})
		}
	}
	cs = append(cs, badCase{name: "loadgen: cancelled before the start", want: "interrupted", run: func(t *testing.T) error {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return runLG(t, loadgen.Offline, loadgen.PerformanceOnly, "", &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 8, Performance: 8}, ctx, nil)
	}})
	// Accuracy logs that cannot be scored as the benchmark's.
	resnet := accuracy.LogShape{Benchmark: "resnet50", DType: accuracy.Int64, MinElems: 1, MaxElems: 1, MaxValue: 1001}
	llama := accuracy.LogShape{Benchmark: "llama2-70b", DType: accuracy.Int32, MinElems: 1, MaxElems: 1024, MaxValue: 32000}
	logCase := func(name, want string, shape accuracy.LogShape, data []byte) badCase {
		return badCase{name: "accuracy: " + name, want: want, run: func(t *testing.T) error {
			path := filepath.Join(t.TempDir(), "missing.json")
			if data != nil {
				path = write(t, "mlperf_log_accuracy.json", data)
			}
			_, err := accuracy.CheckLog(path, shape)
			return err
		}}
	}
	cs = append(cs,
		logCase("empty log", "no entries", resnet, []byte("[\n]\n")),
		logCase("BERT log as ResNet50", "resnet50 response is", resnet, hexLog(make([]byte, 3072))),
		logCase("int32 labels as int64", "another --dtype", resnet, hexLog([]byte{65, 0, 0, 0})),
		logCase("GPT-J log as Llama 2", "llama2-70b response is", llama, hexLog(append(le64(50256), le64(13)...))),
		logCase("label past the classes", "resnet50 response is", resnet, hexLog(le64(5000))),
		logCase("not JSON", "", resnet, []byte("<html>")),
		logCase("truncated", "", resnet, []byte(`[ { "seq_id" : 0, "qsl_idx" : 0, "data" : "41`)),
		logCase("odd hex", "", resnet, []byte(`[ { "seq_id" : 0, "qsl_idx" : 0, "data" : "410" } ]`)),
		logCase("missing file", "no such file", resnet, nil),
		badCase{name: "accuracy: Top1 of an empty log", want: "no entries", run: func(t *testing.T) error {
			_, err := accuracy.Top1(write(t, "a.json", []byte("[]")), []int{1}, accuracy.Int64)
			return err
		}},
		badCase{name: "accuracy: Top1 qsl_idx past the labels", want: "outside the data set", run: func(t *testing.T) error {
			_, err := accuracy.Top1(write(t, "a.json", hexLog(le64(1), le64(2))), []int{1}, accuracy.Int64)
			return err
		}},
	)
	// Data sets.
	valMap := func(name, text, want string) badCase {
		return badCase{name: "val_map: " + name, want: want, run: func(t *testing.T) error {
			_, err := imagenet.ParseValMap(strings.NewReader(text), 0)
			return err
		}}
	}
	cs = append(cs,
		valMap("label 5000", "a.JPEG 5000\n", "0 to 999"),
		valMap("label -1", "a.JPEG -1\n", "0 to 999"),
		valMap("label 1000", "a.JPEG 1000\n", "0 to 999"),
		valMap("word label", "a.JPEG cat\n", "not an integer"),
		valMap("three fields", "a.JPEG 1 2\n", "want"),
		valMap("no label", "a.JPEG\n", "want"),
	)
	sq := func(name, doc, want string) badCase {
		return badCase{name: "squad: " + name, want: want, run: func(t *testing.T) error {
			_, err := squad.Read(strings.NewReader(doc))
			return err
		}}
	}
	cs = append(cs,
		sq("question missing", `{"version":"1.1","data":[{"paragraphs":[{"context":"c","qas":[{"id":"1","answers":[]}]}]}]}`, `empty "question"`),
		sq("context missing", `{"version":"1.1","data":[{"paragraphs":[{"qas":[{"id":"1","question":"q","answers":[]}]}]}]}`, `empty "context"`),
		sq("id missing", `{"version":"1.1","data":[{"paragraphs":[{"context":"c","qas":[{"question":"q"}]}]}]}`, `no "id"`),
		sq("version 2.0", `{"version":"2.0","data":[]}`, "version"),
		sq("no version", `{"data":[]}`, "version"),
		sq("data is an object", `{"version":"1.1","data":{}}`, "where SQuAD has an array"),
		sq("top level array", `[]`, "where SQuAD has an object"),
		sq("empty file", ``, "empty or ends early"),
		sq("truncated", `{"version":"1.1","data":[{"paragr`, "ends early"),
		sq("HTML error page", `<html>404</html>`, "syntax error"),
	)
	cs = append(cs,
		badCase{name: "cnndm: not JSON", run: func(t *testing.T) error {
			_, err := cnndm.Read(strings.NewReader("<html>"), "cnn_eval.json")
			return err
		}},
		badCase{name: "cnndm: truncated", run: func(t *testing.T) error {
			_, err := cnndm.Read(strings.NewReader(`[{"instruction": "x"`), "cnn_eval.json")
			return err
		}},
	)
	orca := func(name, want string, data []byte) badCase {
		return badCase{name: "openorca: " + name, want: want, run: func(t *testing.T) error {
			d, err := openorca.Open(write(t, "open_orca.parquet", data))
			if err == nil {
				d.Close()
			}
			return err
		}}
	}
	cs = append(cs,
		orca("empty file", "download_dataset.sh", nil),
		orca("HTML instead of parquet", "download_dataset.sh", []byte("<html>404</html>")),
		orca("magic only", "download_dataset.sh", []byte("PAR1PAR1")),
		orca("garbage footer", "download_dataset.sh", []byte("PAR1\x01\x02\x03\x04\x05\x00\x00\x00PAR1")),
		badCase{name: "openorca: pandas pickle", want: "pandas pickle", run: func(t *testing.T) error {
			_, err := openorca.Open(write(t, openorca.PickleName, []byte("\x80\x04\x95 pickle")))
			return err
		}},
	)
	// Array and image files.
	npy := func(name, want string, data []byte) badCase {
		return badCase{name: "npy: " + name, want: want, run: func(t *testing.T) error {
			_, _, err := preprocess.LoadNpy(write(t, "x.npy", data))
			return err
		}}
	}
	cs = append(cs,
		npy("empty", "", nil),
		npy("bad magic", "", []byte("NOTNUMPY0000")),
		npy("float64 where float32 is needed", "", npyFile("<f8", "(2,)", make([]byte, 16))),
		npy("truncated data", "", npyFile("<f4", "(1000,)", make([]byte, 16))),
		npy("huge shape", "", npyFile("<f4", "(100000000000,)", make([]byte, 16))),
		npy("negative shape", "", npyFile("<f4", "(-1,)", nil)),
		npy("fortran order", "", bytes.Replace(npyFile("<f4", "(2, 2)", make([]byte, 16)), []byte("False"), []byte("True "), 1)),
		npy("garbage header", "", npyFile("<f4", "oops", nil)),
	)
	npz := func(name string, data []byte) badCase {
		return badCase{name: "npz: " + name, want: "damaged", run: func(t *testing.T) error {
			_, err := preprocess.LoadNpz(write(t, "x.npz", data))
			return err
		}}
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("x.npy")
	w.Write([]byte("\x93NUMPY garbage"))
	zw.Close()
	cs = append(cs, npz("not a zip", []byte("hello")), npz("member not npy", zb.Bytes()), npz("truncated zip", zb.Bytes()[:zb.Len()/2]))
	nii := func(name string, data []byte) badCase {
		return badCase{name: "nifti: " + name, want: "NIfTI", run: func(t *testing.T) error {
			_, err := preprocess.LoadNifti(write(t, "x.nii", data))
			return err
		}}
	}
	cs = append(cs,
		nii("empty", nil),
		nii("short header", make([]byte, 100)),
		nii("bad magic", niftiHeader(func(h []byte) { copy(h[344:], "xyz\x00") })),
		nii("dim[0] 0", niftiHeader(func(h []byte) { binary.LittleEndian.PutUint16(h[40:], 0) })),
		nii("dim[0] 9", niftiHeader(func(h []byte) { binary.LittleEndian.PutUint16(h[40:], 9) })),
		nii("negative dim", niftiHeader(func(h []byte) { binary.LittleEndian.PutUint16(h[42:], 0xffff) })),
		nii("huge volume", niftiHeader(func(h []byte) {
			for i := 0; i < 3; i++ {
				binary.LittleEndian.PutUint16(h[42+2*i:], 32000)
			}
		})),
		nii("unknown datatype", niftiHeader(func(h []byte) { binary.LittleEndian.PutUint16(h[70:], 999) })),
		nii("truncated voxels", niftiHeader(nil)[:356]),
		nii("gzip garbage", []byte{0x1f, 0x8b, 0, 1, 2, 3}),
	)
	jpeg := func(name string, data []byte) badCase {
		return badCase{name: "image: " + name, run: func(t *testing.T) error {
			_, err := preprocess.ReadFile(write(t, "x.JPEG", data), preprocess.BGR)
			return err
		}}
	}
	cs = append(cs,
		jpeg("empty", nil),
		jpeg("text", []byte("not an image")),
		jpeg("JPEG header only", []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0}),
		jpeg("PNG header only", []byte("\x89PNG\r\n\x1a\n")),
	)
	// Sizes the machine cannot hold, flags without units, stale caches.
	cs = append(cs,
		badCase{name: "backend: 100000 threads", want: "CPUs", run: func(*testing.T) error { return backend.CheckThreads("--threads", 100000) }},
		badCase{name: "backend: -1 threads", want: "negative", run: func(*testing.T) error { return backend.CheckThreads("--threads", -1) }},
		badCase{name: "backend: batch 100000 of ResNet50", want: "at most", run: func(*testing.T) error {
			_, err := backend.CheckBatchMemory("--batch 100000", 100000, 600<<10*100)
			return err
		}},
		badCase{name: "backend: batch 0", want: "at least one", run: func(*testing.T) error {
			_, err := backend.CheckBatchMemory("--batch 0", 0, 1)
			return err
		}},
	)
	dur := func(name, in, want string, d argcheck.Duration) badCase {
		return badCase{name: "flag: " + name, want: want, run: func(*testing.T) error { return d.Set(in) }}
	}
	ms := argcheck.Duration{Name: "--duration", Unit: time.Millisecond}
	cs = append(cs,
		dur("--duration 5", "5", "needs a unit", ms),
		dur("--duration 1ns", "1ns", "whole number", ms),
		dur("--duration -1s", "-1s", "negative", ms),
		dur("--service-time -1s", "-1s", "negative", argcheck.Duration{Name: "--service-time", AllowZero: true}),
		dur("--time 0s", "0s", "positive", argcheck.Duration{Name: "--time"}),
		dur("--time -1s", "-1s", "negative", argcheck.Duration{Name: "--time"}),
		dur("--duration ten", "ten", "not a duration", ms),
		dur("--duration empty", "", "empty", ms),
		dur("--duration 100000000h", "100000000h", "too long", ms),
	)
	stamp := harness.CacheStamp{Preprocessing: "v1", Source: "a", SourceName: "val_map.txt"}
	cs = append(cs,
		badCase{name: "cache: a file", want: "is a file", run: func(t *testing.T) error {
			_, err := harness.BindCache(write(t, "cache", []byte("x")), stamp)
			return err
		}},
		badCase{name: "cache: made from another data set (stamp)", want: "differs from this run's", run: func(t *testing.T) error {
			dir := t.TempDir()
			if _, err := harness.BindCache(dir, stamp); err != nil {
				return nil
			}
			other := stamp
			other.Source = "b"
			_, err := harness.BindCache(dir, other)
			return err
		}},
		badCase{name: "cache: made with another preprocessing", want: "this run preprocesses as", run: func(t *testing.T) error {
			dir := t.TempDir()
			if _, err := harness.BindCache(dir, stamp); err != nil {
				return nil
			}
			other := stamp
			other.Preprocessing = "v2"
			_, err := harness.BindCache(dir, other)
			return err
		}},
		badCase{name: "cache: unstamped, same file names, other data set", want: "another data set with the same file names", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := preprocess.SaveNpy(filepath.Join(dir, "x.jpg.npy"), []int{2}, []float32{5, 6}); err != nil {
				return nil
			}
			_, err := harness.OpenNpyCache(context.Background(), harness.NpyCacheConfig{Dir: dir, Stamp: stamp, Total: 1, Shape: []int{2},
				Name: func(int) string { return "x.jpg" },
				Load: func(context.Context, int) ([]float32, error) { return []float32{0, 1}, nil }})
			return err
		}},
		badCase{name: "cache: damaged fingerprint file", want: "damaged", run: func(t *testing.T) error {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, harness.CacheFingerprintFile), []byte("x"), 0o644)
			_, err := harness.BindCache(dir, stamp)
			return err
		}},
		badCase{name: "cache: unstamped, same names, another shape", want: "shape", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := preprocess.SaveNpy(filepath.Join(dir, "x.jpg.npy"), []int{3}, []float32{0, 1, 2}); err != nil {
				return nil
			}
			_, err := harness.OpenNpyCache(context.Background(), harness.NpyCacheConfig{Dir: dir, Stamp: stamp, Total: 1, Shape: []int{2},
				Name: func(int) string { return "x.jpg" },
				Load: func(context.Context, int) ([]float32, error) { return []float32{0, 1}, nil }})
			return err
		}},
	)
	// Run options a new user might mistype (benchmark.Options.Validate).
	bench := &spec.Benchmark{Name: "echo", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
	opts := func(name, want string, mutate func(t *testing.T, o *benchmark.Options)) badCase {
		return badCase{name: "run options: " + name, want: want, run: func(t *testing.T) error {
			o := benchmark.Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: "d", Backend: "cpu"}
			mutate(t, &o)
			return o.Validate(bench)
		}}
	}
	cs = append(cs,
		opts("--qps NaN", "finite", func(_ *testing.T, o *benchmark.Options) { o.QPS = math.NaN() }),
		opts("--qps Inf", "finite", func(_ *testing.T, o *benchmark.Options) { o.QPS = math.Inf(1) }),
		opts("--user-conf a folder", "is a folder", func(t *testing.T, o *benchmark.Options) { o.UserConf = t.TempDir() }),
		opts("--audit-conf missing", "file not found", func(t *testing.T, o *benchmark.Options) { o.AuditConf = filepath.Join(t.TempDir(), "audit.config") }),
		opts("--cache a file", "is a file", func(t *testing.T, o *benchmark.Options) { o.Cache = write(t, "cache", nil) }),
		opts("--scenario Server on an Offline-only benchmark", "not one of", func(_ *testing.T, o *benchmark.Options) { o.Scenario = loadgen.Server }),
		opts("--batch -1", "at least 1", func(_ *testing.T, o *benchmark.Options) { o.Batch = -1 }),
		opts("--data empty", "--data is required", func(_ *testing.T, o *benchmark.Options) { o.Data = "" }),
	)
	// Side files make setup installs, missing everywhere: each place once.
	cs = append(cs,
		badCase{name: "deps: tokenizer installed nowhere", want: "make setup", run: func(t *testing.T) error {
			home := t.TempDir()
			_, err := deps.Lookup{Getenv: func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			}, Cwd: home, Exe: filepath.Join(home, "mlperf")}.Find("gptj/vocab.bpe")
			if err != nil && strings.Count(err.Error(), filepath.Join(home, ".deps", "gptj", "vocab.bpe")) != 1 {
				return nil // a place named twice counts as a failure
			}
			return err
		}},
	)
	// Results trees and data sets a new user might point at by mistake.
	cs = append(cs,
		badCase{name: "check: tree does not exist", want: "does not exist", run: func(t *testing.T) error {
			_, err := check.Check(filepath.Join(t.TempDir(), "results"), check.Options{})
			return err
		}},
		badCase{name: "check: tree is a file", want: "is a file", run: func(t *testing.T) error {
			_, err := check.Check(write(t, "results.tar", []byte("x")), check.Options{})
			return err
		}},
		badCase{name: "kits19: damaged preprocessed_files.json", want: "preprocess the raw cases again", run: func(t *testing.T) error {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, kits19.IndexFile), []byte(`{"file_list": [`), 0o644)
			_, err := kits19.Open(dir)
			return err
		}},
		badCase{name: "kits19: truncated preprocessed image", want: "preprocess the raw cases again", run: func(t *testing.T) error {
			dir := t.TempDir()
			p := kits19.ImagePath(dir, "case_00000")
			if err := preprocess.SaveNpy(p, []int{1, 128, 128, 128}, make([]float32, 128*128*128)); err != nil {
				return nil
			}
			os.Truncate(p, 1000)
			_, err := kits19.LoadImage(dir, kits19.Aux{Case: "case_00000", ImageShape: [4]int{1, 128, 128, 128}})
			return err
		}},
		badCase{name: "kits19: short NIfTI claiming a huge volume", want: "more than the file can hold", run: func(t *testing.T) error {
			dir := t.TempDir()
			aff := [4][4]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
			raw := filepath.Join(dir, "raw.nii")
			if err := kits19.WriteNifti(raw, [3]int{2, 2, 2}, make([]float32, 8), aff); err != nil {
				return nil
			}
			b, _ := os.ReadFile(raw)
			binary.LittleEndian.PutUint16(b[42:], 2000) // 2000×2000×100 voxels
			binary.LittleEndian.PutUint16(b[44:], 2000)
			binary.LittleEndian.PutUint16(b[46:], 100)
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(b)
			zw.Close()
			os.WriteFile(filepath.Join(dir, kits19.ImageFile), gz.Bytes(), 0o644)
			os.WriteFile(filepath.Join(dir, kits19.LabelFile), gz.Bytes(), 0o644)
			_, _, _, _, err := kits19.LoadRaw(dir)
			return err
		}},
		badCase{name: "jpeg: header declares 30000x30000 in a few bytes", want: "header is damaged", run: func(t *testing.T) error {
			// SOI, then a baseline frame header of 30000×30000, one component.
			b := []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x75, 0x30, 0x75, 0x30, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9}
			_, err := preprocess.Decode(b, preprocess.RGB)
			return err
		}},
		badCase{name: "criteo: dense array cut short", want: "truncated", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 64, Seed: 1}); err != nil {
				return nil
			}
			p := filepath.Join(dir, criteo.DenseFile)
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
			ds, err := criteo.Open(dir, criteo.Options{})
			if err == nil {
				ds.Close()
			}
			return err
		}},
		badCase{name: "criteo: sparse npz cut short", want: "npz", run: func(t *testing.T) error {
			dir := t.TempDir()
			if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 64, Seed: 1}); err != nil {
				return nil
			}
			p := filepath.Join(dir, criteo.SparseFile)
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
			ds, err := criteo.Open(dir, criteo.Options{})
			if err == nil {
				ds.Close()
			}
			return err
		}},
		badCase{name: "coco2014: latents cut short", want: "truncated", run: func(t *testing.T) error {
			p := filepath.Join(t.TempDir(), "latents.npy")
			if err := preprocess.SaveNpy(p, []int{1, 4, 16, 16}, make([]float32, 4*16*16)); err != nil {
				return nil
			}
			os.Truncate(p, 300)
			_, _, err := coco2014.LoadLatents(p)
			return err
		}},
		badCase{name: "coco2014: FID statistics not an npz", want: "re-download", run: func(t *testing.T) error {
			_, err := coco2014.LoadStats(write(t, "val2014.npz", []byte("PK\x03\x04 cut")))
			return err
		}},
		badCase{name: "kits19: pixdim resampling to a huge volume", want: "more than the", run: func(t *testing.T) error {
			img := kits19.Volume[float32]{Shape: [3]int{8, 8, 8}, Data: make([]float32, 512)}
			lbl := kits19.Volume[uint8]{Shape: [3]int{8, 8, 8}, Data: make([]uint8, 512)}
			aff := [4][4]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
			_, err := kits19.Preprocess("case_00000", img, lbl, [3]float64{400, 400, 400}, aff)
			return err
		}},
	)
	return cs
}

// TestBadInputTable runs every case and requires zero panics, zero hangs
// and zero silent acceptances.
func TestBadInputTable(t *testing.T) {
	cs := append(append(cases(), hardeningCases()...), round3Cases()...)
	if len(cs) < 100 {
		t.Fatalf("only %d cases; the table must hold at least 100", len(cs))
	}
	var counts [4]int
	for _, c := range cs {
		o, err := runCase(t, c)
		counts[o]++
		switch o {
		case panicked:
			t.Errorf("%s: %v", c.name, err)
		case hung:
			t.Errorf("%s: no answer after %v", c.name, hangLimit)
		case accepted:
			t.Errorf("%s: accepted silently", c.name)
		case refused:
			if c.want != "" && !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: message %q does not say %q", c.name, err, c.want)
			}
		}
	}
	t.Logf("%d cases: %d refused clearly, %d accepted silently, %d panics, %d hangs", len(cs), counts[refused], counts[accepted], counts[panicked], counts[hung])
}
