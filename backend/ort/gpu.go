package ort

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	onnxruntime "github.com/yalue/onnxruntime_go"
)

// This file prepares a process for the GPU execution providers. ONNX
// Runtime loads libonnxruntime_providers_cuda.so (and _tensorrt.so) from the
// folder of its core library; the dynamic loader then resolves the CUDA
// libraries those providers need (libcublasLt.so.13 ...) by name, searching
// only LD_LIBRARY_PATH as it was when the process started, its cache and the
// system folders. CUDA often lives elsewhere: in /usr/local/cuda, or in the
// NVIDIA Python packages (site-packages/nvidia/*/lib) that PyTorch and pip
// install. So before the provider is loaded, each library is looked for in
// those places too and loaded by its absolute path; the loader then matches
// the provider's needs to the loaded libraries by their sonames, as
// onnxruntime's Python preload_dlls and PyTorch do. A library found nowhere
// is reported in one message with every other missing one and the folders
// searched.

// gpuLib is a shared library an execution provider needs at run time.
type gpuLib struct {
	name string // the soname the provider asks for
	what string // what provides it, for the message
	// optional libraries are loaded when found and never reported missing
	// (the provider loads them only for some operators).
	optional bool
}

// cudaLibs are what ONNX Runtime 1.29's CUDA provider (built for CUDA 13
// and cuDNN 9) needs, in load order: its NEEDED entries (cuBLASLt, cuBLAS,
// cuRAND, the runtime, the driver) and what it opens itself (NVRTC, cuDNN,
// cuFFT for the FFT operators).
var cudaLibs = []gpuLib{
	{name: "libcublasLt.so.13", what: "cuBLASLt 13: CUDA toolkit 13, or pip nvidia-cublas"},
	{name: "libcublas.so.13", what: "cuBLAS 13: CUDA toolkit 13, or pip nvidia-cublas"},
	{name: "libcudart.so.13", what: "the CUDA 13 runtime: CUDA toolkit 13, or pip nvidia-cuda-runtime"},
	{name: "libcurand.so.10", what: "cuRAND 10: CUDA toolkit 13, or pip nvidia-curand"},
	{name: "libcufft.so.12", what: "cuFFT 12: CUDA toolkit 13, or pip nvidia-cufft", optional: true},
	{name: "libcudnn.so.9", what: "cuDNN 9 for CUDA 13: pip nvidia-cudnn-cu13, or NVIDIA's cuDNN 9 packages"},
	{name: "libnvrtc.so.13", what: "NVRTC 13: CUDA toolkit 13, or pip nvidia-cuda-nvrtc"},
	{name: "libcuda.so.1", what: "the NVIDIA driver (nvidia-smi lists the GPUs when it is installed)"},
}

// tensorRTLibs are what the TensorRT provider needs besides cudaLibs.
var tensorRTLibs = []gpuLib{
	{name: "libnvinfer.so.10", what: "TensorRT 10 for CUDA 13: pip tensorrt-cu13-libs, or NVIDIA's TensorRT packages"},
	{name: "libnvonnxparser.so.10", what: "TensorRT 10's ONNX parser: the same packages"},
}

// providerLibs are the files ONNX Runtime loads, from its own folder, to
// enable a provider.
var providerLibs = map[string][]string{
	CUDA:     {"libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so"},
	TensorRT: {"libonnxruntime_providers_shared.so", "libonnxruntime_providers_tensorrt.so"},
}

// providersVersionFile, beside the core library, names the ONNX Runtime
// version the provider files were built for (scripts/setup.d/25-onnxruntime-gpu.sh
// writes it). A provider of another version would crash the core.
const providersVersionFile = "providers.version"

// libSearch is where GPU libraries are looked for; fields are injectable
// for tests. The zero value is not usable: see systemSearch.
type libSearch struct {
	getenv func(string) string
	// ldConf is the loader's configuration (/etc/ld.so.conf), whose folders
	// (and those of the files it includes) are searched.
	ldConf string
	// fixed are the CUDA and driver folders searched after ldConf's.
	fixed []string
	// system are the loader's default folders, searched last.
	system []string
	// pythonPrefixes are prefixes (such as /usr or a virtual environment)
	// whose lib/python3*/{site,dist}-packages/nvidia/*/lib are searched,
	// beside those of every python3 on PATH.
	pythonPrefixes []string
	// load opens a library by absolute path, or by bare name (the
	// loader's own search) for one found in none of the folders.
	load func(string) error
}

// systemSearch is the search of a real process.
func systemSearch() libSearch {
	return libSearch{
		getenv: os.Getenv,
		ldConf: "/etc/ld.so.conf",
		fixed: []string{"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
			"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib"},
		system:         []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"},
		pythonPrefixes: []string{"/usr/local", "/usr"},
		load:           dlopenGlobal,
	}
}

// searchGroup is a set of folders searched for one reason, named in the
// message as label.
type searchGroup struct {
	label string
	dirs  []string // existing folders, in search order
	note  string   // said when dirs is empty (e.g. "unset")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// groups lists the places searched, in order.
func (s libSearch) groups() []searchGroup {
	var gs []searchGroup
	seen := map[string]bool{}
	add := func(g *searchGroup, dirs ...string) {
		for _, d := range dirs {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			d = filepath.Clean(d)
			key, err := filepath.EvalSymlinks(d)
			if err != nil || seen[key] || !isDir(d) {
				continue
			}
			seen[key] = true
			g.dirs = append(g.dirs, d)
		}
	}
	ld := searchGroup{label: "LD_LIBRARY_PATH"}
	if v := s.getenv("LD_LIBRARY_PATH"); v != "" {
		add(&ld, filepath.SplitList(v)...)
		if len(ld.dirs) == 0 {
			ld.note = "no existing folder in " + v
		}
	} else {
		ld.note = "unset"
	}
	gs = append(gs, ld)

	cu := searchGroup{label: "CUDA_HOME, CUDA_PATH"}
	var set []string
	for _, k := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := s.getenv(k); v != "" {
			set = append(set, k)
			add(&cu, filepath.Join(v, "lib64"), filepath.Join(v, "lib"), filepath.Join(v, "targets", "x86_64-linux", "lib"))
		}
	}
	if len(set) == 0 {
		cu.note = "unset"
	} else if len(cu.dirs) == 0 {
		cu.note = "no lib64, lib or targets/x86_64-linux/lib folder in " + strings.Join(set, ", ")
	}
	gs = append(gs, cu)

	py := searchGroup{label: "NVIDIA Python packages"}
	sites := s.sitePackages()
	for _, site := range sites {
		libs, _ := filepath.Glob(filepath.Join(site, "nvidia", "*", "lib"))
		slices.Sort(libs)
		add(&py, libs...)
		add(&py, filepath.Join(site, "tensorrt_libs"))
	}
	if len(py.dirs) == 0 {
		if len(sites) == 0 {
			py.note = "no python3 site-packages found"
		} else {
			py.note = "no nvidia/*/lib in " + strings.Join(sites, ", ")
		}
	}
	gs = append(gs, py)

	sys := searchGroup{label: "system folders"}
	add(&sys, s.fixed...)
	add(&sys, ldConfDirs(s.ldConf, 0)...)
	add(&sys, s.system...)
	if len(sys.dirs) == 0 {
		sys.note = "none exist"
	}
	gs = append(gs, sys)
	return gs
}

// sitePackages lists the existing site-packages and dist-packages folders
// of the Python installations found: $VIRTUAL_ENV, $CONDA_PREFIX, the
// prefix of every python3 on PATH (the folder above its bin/, before and
// after resolving links), ~/.local and s.pythonPrefixes.
func (s libSearch) sitePackages() []string {
	var prefixes []string
	for _, k := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v := s.getenv(k); v != "" {
			prefixes = append(prefixes, v)
		}
	}
	for _, dir := range filepath.SplitList(s.getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		py := filepath.Join(dir, "python3")
		if st, err := os.Stat(py); err != nil || st.IsDir() {
			continue
		}
		prefixes = append(prefixes, filepath.Dir(dir))
		if real, err := filepath.EvalSymlinks(py); err == nil {
			prefixes = append(prefixes, filepath.Dir(filepath.Dir(real)))
		}
	}
	if h := s.getenv("HOME"); h != "" {
		prefixes = append(prefixes, filepath.Join(h, ".local"))
	}
	prefixes = append(prefixes, s.pythonPrefixes...)
	var out []string
	seen := map[string]bool{}
	for _, p := range prefixes {
		var found []string
		for _, pat := range []string{"lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages"} {
			m, _ := filepath.Glob(filepath.Join(p, pat))
			found = append(found, m...)
		}
		slices.Sort(found)
		for _, d := range found {
			key, err := filepath.EvalSymlinks(d)
			if err == nil && !seen[key] && isDir(d) {
				seen[key] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// ldConfDirs returns the folders an ld.so.conf names, following its
// include lines (globs, relative to the file's folder) up to a small depth.
func ldConfDirs(path string, depth int) []string {
	if path == "" || depth > 4 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var dirs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "include" {
			for _, pat := range fields[1:] {
				if !filepath.IsAbs(pat) {
					pat = filepath.Join(filepath.Dir(path), pat)
				}
				m, _ := filepath.Glob(pat)
				slices.Sort(m)
				for _, inc := range m {
					dirs = append(dirs, ldConfDirs(inc, depth+1)...)
				}
			}
			continue
		}
		if fields[0] == "hwcap" {
			continue
		}
		for _, d := range fields {
			dirs = append(dirs, strings.Split(d, ",")...)
		}
	}
	return dirs
}

// gpuCheck is the result of looking for a provider's files and libraries.
type gpuCheck struct {
	provider string
	core     string            // the loaded libonnxruntime
	missing  []string          // message lines, one per missing file
	found    map[string]string // soname → absolute path
	order    []string          // sonames found in folders, in load order
	byLoader []string          // sonames only the loader's own search has
	groups   []searchGroup
}

// findGPULibs looks for prov's provider files beside core and for the
// libraries they need in s's places. It opens nothing except, for a
// library found in no folder, by bare name through s.load (the loader's
// cache and LD_LIBRARY_PATH as the process started with it).
func (s libSearch) findGPULibs(prov, core string) *gpuCheck {
	c := &gpuCheck{provider: prov, core: core, found: map[string]string{}, groups: s.groups()}
	dir := filepath.Dir(core)
	for _, f := range providerLibs[prov] {
		if !isFile(filepath.Join(dir, f)) {
			c.missing = append(c.missing, fmt.Sprintf("%s: ONNX Runtime's %s provider, looked for beside %s (MLPERF_GPU=1 make setup installs it there)", f, providerWord(f), core))
		}
	}
	libs := cudaLibs
	if prov == TensorRT {
		libs = append(slices.Clone(tensorRTLibs), cudaLibs...)
	}
	for _, l := range libs {
		p := ""
		for _, g := range c.groups {
			for _, d := range g.dirs {
				if cand := filepath.Join(d, l.name); isFile(cand) {
					p = cand
					break
				}
			}
			if p != "" {
				break
			}
		}
		switch {
		case p != "":
			c.found[l.name] = p
			c.order = append(c.order, l.name)
		case s.load != nil && s.load(l.name) == nil:
			c.byLoader = append(c.byLoader, l.name)
		case !l.optional:
			c.missing = append(c.missing, fmt.Sprintf("%s: %s", l.name, l.what))
		}
	}
	return c
}

func providerWord(file string) string {
	switch {
	case strings.Contains(file, "cuda"):
		return "CUDA"
	case strings.Contains(file, "tensorrt"):
		return "TensorRT"
	}
	return "shared"
}

// err is the one error for everything missing, or nil.
func (c *gpuCheck) err() error {
	if len(c.missing) == 0 {
		return nil
	}
	var b strings.Builder
	noun := "libraries are"
	if len(c.missing) == 1 {
		noun = "library is"
	}
	fmt.Fprintf(&b, "ort: execution provider %s cannot start: %d %s missing:\n", c.provider, len(c.missing), noun)
	for _, m := range c.missing {
		fmt.Fprintf(&b, "  %s\n", m)
	}
	b.WriteString("looked in:\n")
	for _, g := range c.groups {
		if len(g.dirs) > 0 {
			fmt.Fprintf(&b, "  %s: %s\n", g.label, strings.Join(g.dirs, ", "))
		} else {
			fmt.Fprintf(&b, "  %s: %s\n", g.label, g.note)
		}
	}
	b.WriteString("  and the dynamic loader's own search (its cache, /etc/ld.so.cache)\n")
	if c.provider == TensorRT && c.lacksTensorRT() {
		b.WriteString("TensorRT is not installed on this machine: install TensorRT 10 for CUDA 13, or run with the cuda provider, which does not need it\n")
	}
	b.WriteString("fix: install what is missing, or add the folders holding it to LD_LIBRARY_PATH")
	return errors.New(b.String())
}

func (c *gpuCheck) lacksTensorRT() bool {
	for _, m := range c.missing {
		for _, l := range tensorRTLibs {
			if strings.HasPrefix(m, l.name+":") {
				return true
			}
		}
	}
	return false
}

var (
	gpuMu    sync.Mutex
	gpuReady = map[string]bool{}
	// gpuSearch is the search used by Open; tests replace it.
	gpuSearch = systemSearch
)

// Ready loads the ONNX Runtime library and, for cuda and tensorrt, checks
// the provider's files and finds and loads the CUDA (and TensorRT)
// libraries it needs: the error Open would give for that provider, before
// any model is opened. Safe for concurrent use.
func Ready(provider string) error {
	prov, err := ParseProvider(provider)
	if err != nil {
		return err
	}
	if err := Init(); err != nil {
		return err
	}
	switch prov {
	case CUDA, TensorRT:
		return prepareGPU(prov)
	}
	return nil
}

// prepareGPU makes the process ready to load prov's provider: its files
// beside the core library, their version, and the CUDA (and TensorRT)
// libraries found and loaded. Called before ONNX Runtime loads the
// provider; cheap once it succeeded.
func prepareGPU(prov string) error {
	gpuMu.Lock()
	defer gpuMu.Unlock()
	if gpuReady[prov] {
		return nil
	}
	core, err := LibraryPath()
	if err != nil {
		return err
	}
	if err := gpuSearch().prepare(prov, core, onnxruntime.GetVersion()); err != nil {
		return err
	}
	gpuReady[prov] = true
	return nil
}

// prepare is prepareGPU for the core library at core, of the given
// version.
func (s libSearch) prepare(prov, core, version string) error {
	if v, err := os.ReadFile(filepath.Join(filepath.Dir(core), providersVersionFile)); err == nil {
		if want := strings.TrimSpace(string(v)); want != version {
			return fmt.Errorf("ort: the execution providers beside %s were built for ONNX Runtime %s, but that library is %s: run make setup and MLPERF_GPU=1 make setup again (both install %s)", core, want, version, want)
		}
	}
	c := s.findGPULibs(prov, core)
	if err := c.err(); err != nil {
		return err
	}
	var failed []string
	for _, name := range c.order {
		if err := s.load(c.found[name]); err != nil {
			failed = append(failed, fmt.Sprintf("  %s: found at %s, but it does not load: %v", name, c.found[name], err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("ort: execution provider %s cannot start: %d of its libraries do not load:\n%s\nfix: install working copies (CUDA 13 and cuDNN 9 for this machine), or put the folders of good ones first in LD_LIBRARY_PATH",
			prov, len(failed), strings.Join(failed, "\n"))
	}
	return nil
}
