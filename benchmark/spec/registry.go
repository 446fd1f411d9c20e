package spec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
)

var (
	mu         sync.RWMutex
	benchmarks = map[string]*Benchmark{}
	datasets   = map[string]*Dataset{}
)

// Register adds b to the registry. It is meant for init functions: it
// panics on a descriptor without a name, Driver, conf names or
// scenarios, and on a name (or conf name) registered twice, since all
// are programming errors.
func Register(b *Benchmark) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case b.Name == "":
		panic("spec: Register of a benchmark without a Name")
	case b.Driver == nil:
		panic("spec: " + b.Name + " registered without a Driver")
	case len(b.ConfNames) == 0 || len(b.Scenarios) == 0:
		panic("spec: " + b.Name + " registered without ConfNames or Scenarios")
	}
	for _, n := range append([]string{b.Name}, b.ConfNames...) {
		if o := lookupLocked(n); o != nil && o != b {
			panic("spec: " + n + " registered twice (" + o.Name + ", " + b.Name + ")")
		}
	}
	benchmarks[b.Name] = b
}

// Lookup finds a benchmark by its name or one of its mlperf.conf names,
// case-insensitively. It is safe for concurrent use.
func Lookup(name string) (*Benchmark, bool) {
	mu.RLock()
	defer mu.RUnlock()
	b := lookupLocked(name)
	return b, b != nil
}

func lookupLocked(name string) *Benchmark {
	name = strings.ToLower(name)
	if b, ok := benchmarks[name]; ok {
		return b
	}
	for _, b := range benchmarks {
		for _, c := range b.ConfNames {
			if strings.EqualFold(c, name) {
				return b
			}
		}
	}
	return nil
}

// All returns the registered benchmarks sorted by name.
func All() []*Benchmark {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Benchmark, 0, len(benchmarks))
	for _, b := range benchmarks {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *Benchmark) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns the registered benchmarks' names, sorted.
func Names() []string {
	var n []string
	for _, b := range All() {
		n = append(n, b.Name)
	}
	return n
}

// Unknown returns the error for a benchmark name that is not registered,
// listing the ones that are.
func Unknown(name string) error {
	return fmt.Errorf("benchmark: unknown benchmark %q; want one of %s (see mlperf list)", name, strings.Join(Names(), ", "))
}

// Dataset describes a data set's commands: `mlperf dataset synth|verify|
// preprocess <name>`. A benchmark names the Dataset it reads.
type Dataset struct {
	// Name is the registry key, e.g. "imagenet", "openimages", "kits19".
	Name string
	// Summary is one line for `mlperf list`.
	Summary string
	// Synth writes a small data set in the real on-disk format (nil: not
	// available).
	Synth func(req *DatasetRequest) error
	// Verify checks a data set (nil: not available).
	Verify func(req *DatasetRequest) error
	// Preprocess writes the preprocessed form the reference's harness
	// reads (nil: not available).
	Preprocess func(req *DatasetRequest) error
	// Options are the data set's own flags for these commands.
	Options []Option
	// DataFile reports that --data may name the data set's one file (or
	// the folder holding it); when false --data must be a folder.
	DataFile bool
	// DataWant says what --data names, for messages: for example "the
	// ImageNet validation folder (val_map.txt and the JPEG files)".
	DataWant string
	// Download names how to get the real data set (a script of this
	// repository, e.g. "datasets/imagenet/download_dataset.sh"), for
	// messages; "" when there is none.
	Download string
}

// CheckData refuses a --data path that cannot be this data set: one that
// does not exist, or a file where the data set is a folder. The message
// names the path, what is expected and where to get it. "synthetic" and
// "" are left to the caller.
func (d *Dataset) CheckData(path string) error {
	if path == "" || path == "synthetic" {
		return nil
	}
	want := d.DataWant
	if want == "" {
		want = "the " + d.Name + " data set's folder"
	}
	var get []string
	if d.Download != "" {
		get = append(get, "download it with "+d.Download)
	}
	if d.Synth != nil {
		out := "DIR"
		if d.DataFile {
			out = "PATH"
		}
		get = append(get, fmt.Sprintf("make a small one with `mlperf dataset synth %s -o %s`", d.Name, out))
	}
	hint := ""
	if len(get) > 0 {
		hint = "; " + strings.Join(get, ", or ")
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: --data %s does not exist; want %s%s", d.Name, path, want, hint)
	case err != nil:
		return fmt.Errorf("%s: --data: %w", d.Name, err)
	case !d.DataFile && !st.IsDir():
		return fmt.Errorf("%s: --data %s is a file; want %s", d.Name, path, want)
	}
	return nil
}

// DatasetRequest carries the arguments of a dataset command.
type DatasetRequest struct {
	// Data is the data set to read (verify, preprocess).
	Data string
	// Out is where to write (synth, preprocess).
	Out string
	// N is the number of samples to synthesise (0: the data set's
	// default); Seed their seed (0: the default).
	N    int
	Seed uint64
	// NSet reports whether -n was given (verify: -n 0 accepts any
	// count, while no -n expects the full data set).
	NSet bool
	// Count, if positive, uses only the first Count samples (preprocess).
	Count int
	// Workers bounds parallel work (< 1: all cores).
	Workers int
	// Extra holds the values of the data set's Options.
	Extra Extra
	// Progress starts a progress line on Stderr (nil: none).
	Progress func(what, unit string) Progress
	// Stdout receives the result lines, Stderr progress; never nil.
	Stdout, Stderr io.Writer
	// Ctx cancels long work (preprocess); nil means context.Background.
	Ctx context.Context
}

// Context returns r.Ctx, or context.Background when it is nil.
func (r *DatasetRequest) Context() context.Context {
	if r.Ctx == nil {
		return context.Background()
	}
	return r.Ctx
}

// StartProgress starts a progress line through r.Progress, or returns
// one that prints nothing when r.Progress is nil.
func (r *DatasetRequest) StartProgress(what, unit string) Progress {
	if r.Progress == nil {
		return quiet{}
	}
	return r.Progress(what, unit)
}

// quiet is a Progress that prints nothing.
type quiet struct{}

func (quiet) Update(int, int) {}
func (quiet) Done()           {}

// RegisterDataset adds d to the registry; like Register, it is meant for
// init functions and panics on a duplicate name.
func RegisterDataset(d *Dataset) {
	mu.Lock()
	defer mu.Unlock()
	if d.Name == "" {
		panic("spec: RegisterDataset without a Name")
	}
	if _, dup := datasets[d.Name]; dup {
		panic("spec: dataset " + d.Name + " registered twice")
	}
	datasets[d.Name] = d
}

// LookupDataset finds a registered data set by name.
func LookupDataset(name string) (*Dataset, bool) {
	mu.RLock()
	defer mu.RUnlock()
	d, ok := datasets[strings.ToLower(name)]
	return d, ok
}

// DatasetNames returns the registered data sets' names, sorted.
func DatasetNames() []string {
	var n []string
	for _, d := range AllDatasets() {
		n = append(n, d.Name)
	}
	return n
}

// AllDatasets returns the registered data sets sorted by name.
func AllDatasets() []*Dataset {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Dataset, 0, len(datasets))
	for _, d := range datasets {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *Dataset) int { return strings.Compare(a.Name, b.Name) })
	return out
}
