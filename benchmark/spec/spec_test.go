package spec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// nopDriver neither opens nor scores.
type nopDriver struct{}

func (nopDriver) Open(context.Context, *OpenRequest) (*Instance, error) { return nil, nil }
func (nopDriver) Score(context.Context, *ScoreRequest) (*Score, error)  { return nil, nil }

func TestRegistryLookup(t *testing.T) {
	b := &Benchmark{Name: "echo", ConfNames: []string{"resnet50", "echo-alias"}, Scenarios: []loadgen.Scenario{loadgen.Offline}, Driver: nopDriver{}}
	Register(b)
	defer func() { mu.Lock(); delete(benchmarks, b.Name); mu.Unlock() }()
	for _, n := range []string{"echo", "ECHO", "echo-alias"} {
		if got, ok := Lookup(n); !ok || got != b {
			t.Errorf("Lookup(%q) = %v, %v", n, got, ok)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	if err := Unknown("nope"); !strings.Contains(err.Error(), "echo") {
		t.Errorf("Unknown does not list the registered names: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a second benchmark under a taken conf name did not panic")
		}
	}()
	dup := *b
	dup.Name = "other"
	Register(&dup)
}

// A descriptor without a Driver is a programming error caught at
// registration.
func TestRegisterWithoutDriverPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "without a Driver") {
			t.Errorf("recover() = %v, want a panic about the Driver", r)
		}
	}()
	Register(&Benchmark{Name: "nodriver", ConfNames: []string{"nodriver"}, Scenarios: []loadgen.Scenario{loadgen.Offline}})
}

// Batches.For: the listed scenario's CPU value, its GPU value on any
// other local backend, and 1 for a scenario not listed.
func TestBatchesFor(t *testing.T) {
	b := Batches{loadgen.Offline: {CPU: 8, GPU: 32}, loadgen.MultiStream: {CPU: 8}}
	for _, c := range []struct {
		sc      loadgen.Scenario
		backend string
		want    int
	}{
		{loadgen.Offline, "cpu", 8}, {loadgen.Offline, "cuda", 32}, {loadgen.Offline, "tensorrt", 32},
		{loadgen.MultiStream, "cuda", 8}, {loadgen.Server, "cpu", 1}, {loadgen.SingleStream, "cuda", 1},
	} {
		if got := b.For(c.sc, c.backend); got != c.want {
			t.Errorf("For(%s, %s) = %d, want %d", c.sc, c.backend, got, c.want)
		}
	}
	if got := Batches(nil).For(loadgen.Offline, "cuda"); got != 1 {
		t.Errorf("no batches: %d, want 1", got)
	}
	// CPU 1 is a listed value (its GPU value counts); CPU 0 is not.
	if got := (Batches{loadgen.Server: {CPU: 1, GPU: 16}}).For(loadgen.Server, "cuda"); got != 16 {
		t.Errorf("CPU 1, GPU 16 on cuda: %d, want 16", got)
	}
	if got := (Batches{loadgen.Server: {CPU: 0, GPU: 16}}).For(loadgen.Server, "cuda"); got != 1 {
		t.Errorf("CPU 0, GPU 16 on cuda: %d, want 1", got)
	}
}

// --data of the wrong kind is refused with a message that names the path,
// what the data set wants and where to get it; paths of the right kind pass.
func TestCheckDataNamesThePathAndTheWant(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dev.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	missing := filepath.Join(dir, "missing")
	folder := &Dataset{Name: "pics", DataWant: "the pictures folder", Download: "get_pics.sh", Synth: func(*DatasetRequest) error { return nil }}
	oneFile := &Dataset{Name: "qa", DataFile: true, DataWant: "the qa.json file or its folder"}
	for _, c := range []struct {
		d    *Dataset
		path string
		want string // "" means accepted
	}{
		{folder, dir, ""},
		{folder, "synthetic", ""},
		{folder, file, "pics: --data " + file + " is a file; want the pictures folder"},
		{folder, missing, "pics: --data " + missing + " does not exist; want the pictures folder; download it with get_pics.sh, or make a small one with `mlperf dataset synth pics -o DIR`"},
		{oneFile, file, ""},
		{oneFile, dir, ""},
		{oneFile, missing, "qa: --data " + missing + " does not exist; want the qa.json file or its folder"},
	} {
		err := c.d.CheckData(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v", c.d.Name, c.path, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s %s: %v, want %q", c.d.Name, c.path, err, c.want)
		}
	}
}

// Each programming error Register and RegisterDataset catch panics with
// its own message; nothing is registered.
func TestRegisterPanicsNameWhatIsMissing(t *testing.T) {
	sc := []loadgen.Scenario{loadgen.Offline}
	for _, c := range []struct {
		b    *Benchmark
		want string
	}{
		{&Benchmark{ConfNames: []string{"x"}, Scenarios: sc, Driver: nopDriver{}}, "spec: Register of a benchmark without a Name"},
		{&Benchmark{Name: "p-noconf", Scenarios: sc, Driver: nopDriver{}}, "spec: p-noconf registered without ConfNames or Scenarios"},
		{&Benchmark{Name: "p-nosc", ConfNames: []string{"p-nosc"}, Driver: nopDriver{}}, "spec: p-nosc registered without ConfNames or Scenarios"},
	} {
		func() {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("recover() = %v, want %q", r, c.want)
				}
			}()
			Register(c.b)
		}()
		if _, ok := Lookup(c.b.Name); ok && c.b.Name != "" {
			t.Errorf("%s registered despite the panic", c.b.Name)
		}
	}
	// The same descriptor registered again is not a duplicate of itself.
	b := &Benchmark{Name: "p-again", ConfNames: []string{"p-again-conf"}, Scenarios: sc, Driver: nopDriver{}}
	Register(b)
	Register(b)
	defer func() { mu.Lock(); delete(benchmarks, b.Name); mu.Unlock() }()
	if got, ok := Lookup("P-AGAIN-CONF"); !ok || got != b {
		t.Errorf("Lookup by conf name after registering twice: %v %v", got, ok)
	}
}

func TestRegisterDatasetAndAllDatasets(t *testing.T) {
	defer func() {
		mu.Lock()
		delete(datasets, "zz-test")
		delete(datasets, "aa-test")
		mu.Unlock()
	}()
	RegisterDataset(&Dataset{Name: "zz-test"})
	RegisterDataset(&Dataset{Name: "aa-test"})
	var names []string
	for _, d := range AllDatasets() {
		names = append(names, d.Name)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, "aa-test") || !slices.Contains(names, "zz-test") {
		t.Errorf("AllDatasets names %v: want both, sorted", names)
	}
	if d, ok := LookupDataset("ZZ-test"); !ok || d.Name != "zz-test" {
		t.Errorf("LookupDataset(ZZ-test) = %v, %v; want zz-test (names are lower case)", d, ok)
	}
	if _, ok := LookupDataset("zz"); ok {
		t.Error("LookupDataset(zz) found a data set")
	}
	for _, c := range []struct {
		d    *Dataset
		want string
	}{
		{&Dataset{}, "spec: RegisterDataset without a Name"},
		{&Dataset{Name: "zz-test"}, "spec: dataset zz-test registered twice"},
	} {
		func() {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("recover() = %v, want %q", r, c.want)
				}
			}()
			RegisterDataset(c.d)
		}()
	}
}

func TestUsageErrorMatchesOnlyErrUsage(t *testing.T) {
	err := UsageError("x: --batch %d", 3)
	if err.Error() != "x: --batch 3" || !errors.Is(err, ErrUsage) {
		t.Errorf("UsageError = %q, Is(ErrUsage) %v", err, errors.Is(err, ErrUsage))
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Error("a usage error matches os.ErrNotExist")
	}
	if errors.Is(errors.New("usage"), ErrUsage) {
		t.Error("another error with the same text matches ErrUsage")
	}
}

func TestRequestHelpers(t *testing.T) {
	if (&OpenRequest{}).Synthetic() || !(&OpenRequest{SyntheticSize: "tiny"}).Synthetic() {
		t.Error("Synthetic is not SyntheticSize != \"\"")
	}
	if ctx := (&DatasetRequest{}).Context(); ctx != context.Background() {
		t.Errorf("nil Ctx: %v, want context.Background", ctx)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if got := (&DatasetRequest{Ctx: ctx}).Context(); got != ctx {
		t.Errorf("Ctx not returned: %v", got)
	}
}

// CheckData's message: the data set's own words, or a default naming its
// folder; one hint alone, or two joined; PATH for a one-file data set.
func TestCheckDataMessageParts(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	synth := func(*DatasetRequest) error { return nil }
	for _, c := range []struct {
		d    *Dataset
		want string
	}{
		{&Dataset{Name: "pics"}, "pics: --data " + missing + " does not exist; want the pics data set's folder"},
		{&Dataset{Name: "pics", Download: "get.sh"}, "pics: --data " + missing + " does not exist; want the pics data set's folder; download it with get.sh"},
		{&Dataset{Name: "qa", DataFile: true, Synth: synth}, "qa: --data " + missing + " does not exist; want the qa data set's folder; make a small one with `mlperf dataset synth qa -o PATH`"},
	} {
		if err := c.d.CheckData(missing); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
	}
	if err := (&Dataset{Name: "pics"}).CheckData(""); err != nil {
		t.Errorf("empty --data: %v", err)
	}
}

// recorded is a Progress that records its calls.
type recorded struct{ calls *[]string }

func (r recorded) Update(done, total int) {
	*r.calls = append(*r.calls, fmt.Sprintf("%d/%d", done, total))
}
func (r recorded) Done() { *r.calls = append(*r.calls, "done") }

// TestStartProgress: a request with a Progress starts its line through it
// (what and unit passed on, updates reaching it); one without gets a
// Progress that prints nothing and does not fail.
func TestStartProgress(t *testing.T) {
	var calls []string
	var what, unit string
	r := &DatasetRequest{Progress: func(w, u string) Progress { what, unit = w, u; return recorded{&calls} }}
	p := r.StartProgress("images", "files")
	p.Update(1, 3)
	p.Done()
	if what != "images" || unit != "files" || !slices.Equal(calls, []string{"1/3", "done"}) {
		t.Errorf("progress %q %q, calls %v", what, unit, calls)
	}
	q := (&DatasetRequest{}).StartProgress("images", "files")
	q.Update(1, 3)
	q.Done()
}

// builder is a driver that builds synthetic models.
type builder struct{ nopDriver }

func (builder) BuildModel(path, size string, seed uint64) error { return nil }

// SizeNames lists the sizes in order; BuildsModels needs both sizes and
// a ModelBuilder driver.
func TestSizeNamesAndBuildsModels(t *testing.T) {
	sizes := Models{Sizes: []Size{{Name: "full"}, {Name: "tiny"}}}
	for _, c := range []struct {
		b      Benchmark
		names  []string
		builds bool
	}{
		{Benchmark{Model: sizes, Driver: builder{}}, []string{"full", "tiny"}, true},
		{Benchmark{Model: sizes, Driver: nopDriver{}}, []string{"full", "tiny"}, false},
		{Benchmark{Driver: builder{}}, []string{}, false},
	} {
		if got := c.b.SizeNames(); !slices.Equal(got, c.names) || c.b.BuildsModels() != c.builds {
			t.Errorf("%+v: SizeNames %q BuildsModels %v; want %q %v", c.b, got, c.b.BuildsModels(), c.names, c.builds)
		}
	}
}

// DatasetNames lists the registered data sets' names, sorted.
func TestDatasetNamesSorted(t *testing.T) {
	defer func() { mu.Lock(); delete(datasets, "zz-names"); delete(datasets, "aa-names"); mu.Unlock() }()
	RegisterDataset(&Dataset{Name: "zz-names"})
	RegisterDataset(&Dataset{Name: "aa-names"})
	n := DatasetNames()
	if !slices.IsSorted(n) || !slices.Contains(n, "aa-names") || !slices.Contains(n, "zz-names") {
		t.Errorf("DatasetNames %q: want both, sorted", n)
	}
}
