package submission

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/benchmarktest"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/loadgen"
)

var fake = benchmarktest.New(256, 200*time.Microsecond)

func init() { spec.Register(fake) }

// gates are the checks a short run on a test benchmark cannot pass: the
// 600 s minimum duration, the data set size and sample counts of the real
// resnet50, the Offline minimum query size, and verdicts that depend on
// the timing of two short runs on a busy machine; and the lines that
// follow them (a failed check set, no result).
var gates = regexp.MustCompile(`Test duration less than 600s|accurcy run does not cover all dataset|performance_sample_count, found|Required minimum samples per query|Compliance test performance check .* failed|Early stopping condition was not met|^Some (performance|accuracy|compliance) checks? Checks failed for|^NoResults `)

// shortConf is a user.conf for 100 ms runs of the fake benchmark.
func shortConf(t *testing.T, dir string) string {
	conf := filepath.Join(dir, "user.conf")
	os.WriteFile(conf, []byte("*.*.min_duration = 100\n*.*.min_query_count = 64\n*.SingleStream.target_latency = 0.2\n*.MultiStream.target_latency = 0.2\n*.Offline.target_qps = 4000\n"), 0o644)
	return conf
}

func plan(t *testing.T, o Options) *Plan {
	t.Helper()
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkOnlyGates runs the Go checker on a tree and fails on any message
// but the short-run gates.
func checkOnlyGates(t *testing.T, out, round string) *check.Report {
	t.Helper()
	rep, err := check.Check(out, check.Options{Round: round})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range rep.Lines {
		if !gates.MatchString(l.Text) {
			t.Errorf("round %s: checker message beyond the short-run gates: %s", round, l)
		}
	}
	if rep.OK() {
		t.Errorf("round %s: no errors: a 100 ms run cannot meet the 600 s minimum", round)
	}
	return rep
}

// For a v6.x and a v5.x round, plan → run → write makes the round's
// layout, with the round's seeds in every performance log, and the Go
// checker finds nothing wrong but the short-run gates; --from collects
// the same runs into a second tree.
func TestPlanRunWriteMakesTheRoundsTree(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	for _, round := range []string{"v6.1", "v5.1"} {
		t.Run(round, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "tree")
			run := benchmark.Options{Model: "synthetic", Data: "synthetic", Backend: "cpu", UserConf: shortConf(t, dir)}
			p := plan(t, Options{Benchmark: fake, RunOptions: run, Out: out, Round: round, Submitter: "Tester", SystemName: "box",
				TEST01DType: "int32", Command: "go test ./submission"})
			if !slices.Equal(p.Scenarios, []string{"SingleStream", "MultiStream", "Offline"}) || !slices.Equal(p.Tests, []string{"TEST01", "TEST04"}) || p.SystemType != check.Edge {
				t.Fatalf("plan: scenarios %v tests %v system %s", p.Scenarios, p.Tests, p.SystemType)
			}
			var log bytes.Buffer
			runs, err := p.Run(context.Background(), &log)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			// An accuracy run's review images (sdxl's) travel with its logs.
			os.MkdirAll(filepath.Join(runs[0].Accuracy, "images"), 0o755)
			os.WriteFile(filepath.Join(runs[0].Accuracy, "images", "4459.png"), []byte("png"), 0o644)
			if _, err := p.Write(context.Background(), runs, &log); err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			r := check.Rounds[round]
			v5 := strings.Contains(r.Layout.Compliance, "/compliance/") // the v5.x layout
			results := filepath.Join(out, "closed/Tester/results/box/resnet")
			meas, comp, src := results, results, "closed/Tester/src"
			if v5 {
				meas, comp, src = filepath.Join(out, "closed/Tester/measurements/box/resnet"), filepath.Join(out, "closed/Tester/compliance/box/resnet"), "closed/Tester/code"
			}
			for _, f := range []string{filepath.Join(out, src, "README.md"), filepath.Join(results, runs[0].Name, "accuracy/images/4459.png")} {
				if _, err := os.Stat(f); err != nil {
					t.Error(err)
				}
			}
			for _, s := range p.Scenarios {
				m := filepath.Join(meas, s, "measurements.json")
				if v5 {
					m = filepath.Join(meas, s, "box_"+s+".json")
				}
				for _, f := range []string{m, filepath.Join(meas, s, "user.conf"), filepath.Join(meas, s, "README.md"),
					filepath.Join(results, s, "accuracy/accuracy.txt"), filepath.Join(results, s, "accuracy/mlperf_log_accuracy.json"),
					filepath.Join(comp, s, "TEST01/verify_accuracy.txt"), filepath.Join(comp, s, "TEST04/verify_performance.txt"),
					filepath.Join(comp, s, "TEST04/performance/run_1/mlperf_log_summary.txt")} {
					if _, err := os.Stat(f); err != nil {
						t.Error(err)
					}
				}
				detail, _ := os.ReadFile(filepath.Join(results, s, "performance/run_1/mlperf_log_detail.txt"))
				for _, key := range []string{"requested_qsl_rng_seed", "effective_qsl_rng_seed"} {
					if want := fmt.Sprintf(`"key": "%s", "value": %d,`, key, r.Seeds.QSL); !strings.Contains(string(detail), want) {
						t.Errorf("%s: the performance log lacks %s", s, want)
					}
				}
				readme, _ := os.ReadFile(filepath.Join(meas, s, "README.md"))
				if !strings.Contains(string(readme), "--round "+round) || !strings.Contains(string(readme), "LoadGen 6.0.17") {
					t.Errorf("%s README.md:\n%s", s, readme)
				}
				acc, _ := os.ReadFile(filepath.Join(results, s, "accuracy/accuracy.txt"))
				if !regexp.MustCompile(`(?m)^accuracy=100\.000%.*\n\nhash=[0-9a-f]{64}$`).Match(acc) {
					t.Errorf("%s accuracy.txt:\n%s", s, acc)
				}
			}
			checkOnlyGates(t, out, round)

			out2 := filepath.Join(dir, "tree2")
			p2 := plan(t, Options{Benchmark: fake, Out: out2, Round: round, From: out + "-runs", Submitter: "Tester", SystemName: "box", TEST01DType: "int32"})
			runs2, err := p2.Run(context.Background(), &log)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p2.Write(context.Background(), runs2, &log); err != nil {
				t.Fatalf("--from: %v", err)
			}
			checkOnlyGates(t, out2, round)
		})
	}
}

// Runs made with one round's seeds fail another round's check on every
// performance log, as the MLCommons checker's do.
func TestRunsOfAnotherRoundFailItsSeeds(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	run := benchmark.Options{Model: "synthetic", Data: "synthetic", Backend: "cpu", UserConf: shortConf(t, dir)}
	p := plan(t, Options{Benchmark: fake, RunOptions: run, Out: filepath.Join(dir, "tree"), Round: "v6.0", Submitter: "Tester", SystemName: "box", Scenarios: []string{"Offline"}})
	runs, err := p.Run(context.Background(), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(context.Background(), runs, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		round string
		wrong bool
	}{{"v6.0", false}, {"v6.1", true}} {
		rep, err := check.Check(filepath.Join(dir, "tree"), check.Options{Round: c.round})
		if err != nil {
			t.Fatal(err)
		}
		wrong := false
		for _, l := range rep.Lines {
			wrong = wrong || strings.Contains(l.Text, "qsl_rng_seed is wrong")
		}
		if wrong != c.wrong {
			t.Errorf("v6.0 runs checked as %s: seeds wrong %v, want %v", c.round, wrong, c.wrong)
		}
	}
}

// fakeBench is a descriptor for plans of --from runs (nothing runs).
func fakeBench(name string, ids []string, scenarios ...loadgen.Scenario) *spec.Benchmark {
	return &spec.Benchmark{Name: name, CheckerIDs: ids, ConfNames: []string{name}, Scenarios: scenarios, Model: spec.Models{Default: "synthetic"}}
}

// NewPlan applies each round's tables: the model id the round lists, the
// system type it lists the model for, the scenarios it requires there
// (and Server where one of Server and Interactive must be), and its
// compliance tests.
func TestNewPlanAppliesTheRoundsTables(t *testing.T) {
	from := t.TempDir()
	all := []loadgen.Scenario{loadgen.SingleStream, loadgen.MultiStream, loadgen.Offline, loadgen.Server}
	llama2 := fakeBench("llama2", []string{"llama2-70b-99", "llama2-70b-99.9"}, loadgen.Offline, loadgen.Server)
	retinanet := fakeBench("retinanet", []string{"retinanet"}, all...)
	gptj := fakeBench("gptj", []string{"gptj-99", "gptj-99.9"}, all...)
	resnet := fakeBench("resnet50", []string{"resnet"}, all...)
	for _, c := range []struct {
		b          *spec.Benchmark
		round, typ string
		id         string
		sys        check.SystemType
		scenarios  []string
		tests      []string
	}{
		{llama2, "v6.1", "", "llama2-70b-99.9", check.Datacenter, []string{"Offline", "Server"}, []string{"TEST06"}},
		{llama2, "v5.0", "", "llama2-70b-99", check.Datacenter, []string{"Server", "Offline"}, []string{"TEST06"}},
		{retinanet, "v6.0", "", "retinanet", check.DatacenterEdge, []string{"SingleStream", "Offline", "MultiStream", "Server"}, []string{"TEST01"}},
		{retinanet, "v5.1", "", "retinanet", check.Edge, []string{"SingleStream", "MultiStream", "Offline"}, []string{"TEST01"}},
		{gptj, "v5.0", "", "gptj-99", check.Edge, []string{"SingleStream", "Offline"}, []string{"TEST06"}},
		{resnet, "v6.1", "datacenter,edge", "resnet", check.DatacenterEdge, []string{"SingleStream", "MultiStream", "Offline", "Server"}, []string{"TEST01", "TEST04"}},
		{resnet, "v5.0", "datacenter", "resnet", check.Datacenter, []string{"Server", "Offline"}, []string{"TEST01", "TEST04"}},
	} {
		p, err := NewPlan(Options{Benchmark: c.b, Out: filepath.Join(t.TempDir(), "o"), From: from, Round: c.round, SystemType: c.typ, SystemName: "box"})
		if err != nil {
			t.Errorf("%s %s: %v", c.b.Name, c.round, err)
			continue
		}
		if p.CheckerID != c.id || p.SystemType != c.sys || !slices.Equal(p.Scenarios, c.scenarios) || !slices.Equal(p.Tests, c.tests) || *p.RunOptions.Seeds != check.Rounds[c.round].Seeds {
			t.Errorf("%s %s: id %s system %s scenarios %v tests %v seeds %v; want %s %s %v %v", c.b.Name, c.round, p.CheckerID, p.SystemType, p.Scenarios, p.Tests, p.RunOptions.Seeds, c.id, c.sys, c.scenarios, c.tests)
		}
	}
}

// NewPlan refuses, naming what is wrong and before anything runs or is
// written: a model the round does not list, a system type the round does
// not list it for, a scenario the checker would call unknown, a scenario
// the benchmark cannot run, and names that are not one folder name.
func TestNewPlanRefuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	gptj := fakeBench("gptj", []string{"gptj-99", "gptj-99.9"}, loadgen.Offline)
	base := func() Options {
		return Options{Benchmark: fake, Out: out, Submitter: "Tester", SystemName: "box", RunOptions: benchmark.Options{Model: "synthetic"}}
	}
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Benchmark = gptj }, "gptj is not in round v6.1 (its checker ids gptj-99, gptj-99.9 are listed by round v5.0)"},
		{func(o *Options) { o.Benchmark = fakeBench("odd", []string{"odd-99"}, loadgen.Offline) }, "odd is not in round v6.1 (its checker ids odd-99 are listed by no round)"},
		{func(o *Options) { o.Benchmark = nil }, "submission: no benchmark"},
		{func(o *Options) { o.Round = "v7.0" }, `unknown round "v7.0"`},
		{func(o *Options) { o.SystemType = "datacenter" }, "round v6.1 lists resnet for edge and datacenter,edge systems only, not datacenter"},
		{func(o *Options) { o.System = map[string]any{"system_type": "cloud"} }, `system_type "cloud"`},
		{func(o *Options) { o.Scenarios = []string{"Offline", "Server"} }, "round v6.1 has no scenario Server for resnet on edge systems (required: SingleStream, MultiStream, Offline; optional: none)"},
		{func(o *Options) { o.SystemType = "datacenter,edge" }, "fakeresnet does not run scenario Server"},
		{func(o *Options) { o.CheckerID = "resnet50" }, `--checker-id "resnet50" is not a model of round v6.1`},
		{func(o *Options) { o.Division = "closed/../../x" }, `--division "closed/../../x"`},
		{func(o *Options) { o.Submitter = "../../x" }, `--submitter (or the system description's submitter) "../../x" holds a path separator`},
		{func(o *Options) {
			o.Submitter = ""
			o.System = map[string]any{"system_type": "edge", "submitter": "../../x"}
		}, `"../../x" holds a path separator`},
		{func(o *Options) { o.SystemName = "a/../../../b" }, `--system-name (or the --system file's name) "a/../../../b" holds a path separator`},
		{func(o *Options) { o.SystemName = ".." }, `".." is not a folder name`},
		{func(o *Options) { o.Scenarios = []string{"../Offline"} }, `scenario "../Offline" holds a path separator`},
		{func(o *Options) { o.Out = file }, "--out " + file + " is a file"},
		{func(o *Options) { o.From = filepath.Join(dir, "none") }, "--from " + filepath.Join(dir, "none") + " does not exist"},
	} {
		o := base()
		c.edit(&o)
		_, err := NewPlan(o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", o, err, c.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused plan made %s", out)
	}
	// No submitter anywhere: the default one.
	o := base()
	o.Submitter = ""
	if p, err := NewPlan(o); err != nil || p.Submitter != "MLPerf-Go" {
		t.Errorf("no submitter: %v, %v; want MLPerf-Go", p, err)
	}
}

// Write refuses a symbolic link in --out that leads outside it, and
// writes nothing there.
func TestWriteStaysUnderOut(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	if err := os.Symlink(outside, filepath.Join(out, "closed")); err != nil {
		t.Skip(err)
	}
	tree := &Tree{Out: out, Division: "closed", Submitter: "Tester", System: "box", SystemJSON: SystemTemplate("box", "edge"), Benchmark: "resnet"}
	_, err := tree.Write()
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link to "+outside+", outside --out") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote %d entries outside --out", len(ents))
	}
	// A link inside the tree is followed.
	os.Remove(filepath.Join(out, "closed"))
	os.Mkdir(filepath.Join(out, "real"), 0o755)
	os.Symlink(filepath.Join(out, "real"), filepath.Join(out, "closed"))
	if _, err := tree.Write(); err != nil {
		t.Fatalf("link inside --out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "real/Tester/systems/box.json")); err != nil {
		t.Error(err)
	}
	// A tree name that is not one component is refused by Write too.
	tree.System = "../box"
	if _, err := tree.Write(); err == nil || !strings.Contains(err.Error(), `system name "../box" holds a path separator`) {
		t.Fatalf("err = %v", err)
	}
}

func TestTruncateAccuracyAsTheScript(t *testing.T) {
	dir := t.TempDir()
	log := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes
	os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), log, 0o644)
	os.WriteFile(filepath.Join(dir, "accuracy.txt"), []byte("accuracy=76.500%, good=1, total=1\n"), 0o644)
	if err := TruncateAccuracy(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	want := string(log[:4096]) + "\n\n...\n\n" + string(log[len(log)-4096:])
	if string(got) != want {
		t.Fatalf("truncated log of %d bytes, want %d", len(got), len(want))
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "accuracy.txt"))
	// sha256 of the 16000 bytes, from Python's hashlib.
	if string(txt) != "accuracy=76.500%, good=1, total=1\n\nhash=0c7cdca23b2eaad05f07c63161c741609a847b8a87a32accee995ec9cf546856\n" {
		t.Fatalf("accuracy.txt:\n%s", txt)
	}
	// A second pass leaves a hashed, truncated folder alone.
	if err := TruncateAccuracy(dir); err != nil {
		t.Fatal(err)
	}
	txt2, _ := os.ReadFile(filepath.Join(dir, "accuracy.txt"))
	if string(txt2) != string(txt) {
		t.Fatal("second pass changed accuracy.txt")
	}
}

// A --from folder without a scenario's runs is named.
func TestRunFromFolderWithoutTheScenario(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, Options{Benchmark: fake, Out: filepath.Join(dir, "out"), From: dir, Submitter: "Tester", SystemName: "box"})
	_, err := p.Run(context.Background(), &bytes.Buffer{})
	if !errors.Is(err, ErrNoRuns) || !strings.Contains(err.Error(), filepath.Join(dir, "SingleStream")+" has no performance folder") {
		t.Fatalf("err = %v", err)
	}
}
