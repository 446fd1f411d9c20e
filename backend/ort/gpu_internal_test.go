package ort

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeMachine is a file tree standing for a machine's library folders.
type fakeMachine struct {
	root string
	env  map[string]string
}

func newFakeMachine(t *testing.T) *fakeMachine {
	return &fakeMachine{root: t.TempDir(), env: map[string]string{}}
}

func (m *fakeMachine) path(rel string) string { return filepath.Join(m.root, filepath.FromSlash(rel)) }

// file creates rel (and its folders) with some bytes that are not a
// shared library.
func (m *fakeMachine) file(t *testing.T, rel string) string {
	t.Helper()
	p := m.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("not a library"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func (m *fakeMachine) dir(t *testing.T, rel string) string {
	t.Helper()
	p := m.path(rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// search is the machine's libSearch; load records the bare names it is
// asked for and finds those in byName.
func (m *fakeMachine) search(byName []string, asked *[]string) libSearch {
	return libSearch{
		getenv:         func(k string) string { return m.env[k] },
		ldConf:         m.path("etc/ld.so.conf"),
		fixed:          []string{m.path("usr/local/cuda/lib64"), m.path("usr/local/nvidia/lib64")},
		system:         []string{m.path("usr/lib/x86_64-linux-gnu"), m.path("lib64")},
		pythonPrefixes: []string{m.path("usr")},
		load: func(name string) error {
			if filepath.IsAbs(name) {
				return dlopenGlobal(name)
			}
			*asked = append(*asked, name)
			if slices.Contains(byName, name) {
				return nil
			}
			return errors.New(name + ": cannot open shared object file")
		},
	}
}

// A CPU machine with nothing of CUDA: the message lists every missing
// library with what provides it, and every place searched, exactly.
func TestGPUCheckListsEveryMissingLibraryAndWhereItLooked(t *testing.T) {
	m := newFakeMachine(t)
	core := m.file(t, "deps/onnxruntime/libonnxruntime.so.1")
	m.dir(t, "usr/lib/x86_64-linux-gnu")
	m.dir(t, "usr/lib/python3/dist-packages")
	m.env["PATH"] = m.path("usr/bin")
	var asked []string
	err := m.search(nil, &asked).prepare(CUDA, core, "1.29.0")
	if err == nil {
		t.Fatal("prepare succeeded on a machine without CUDA")
	}
	want := `ort: execution provider cuda cannot start: 9 libraries are missing:
  libonnxruntime_providers_shared.so: ONNX Runtime's shared provider, looked for beside ROOT/deps/onnxruntime/libonnxruntime.so.1 (MLPERF_GPU=1 make setup installs it there)
  libonnxruntime_providers_cuda.so: ONNX Runtime's CUDA provider, looked for beside ROOT/deps/onnxruntime/libonnxruntime.so.1 (MLPERF_GPU=1 make setup installs it there)
  libcublasLt.so.13: cuBLASLt 13: CUDA toolkit 13, or pip nvidia-cublas
  libcublas.so.13: cuBLAS 13: CUDA toolkit 13, or pip nvidia-cublas
  libcudart.so.13: the CUDA 13 runtime: CUDA toolkit 13, or pip nvidia-cuda-runtime
  libcurand.so.10: cuRAND 10: CUDA toolkit 13, or pip nvidia-curand
  libcudnn.so.9: cuDNN 9 for CUDA 13: pip nvidia-cudnn-cu13, or NVIDIA's cuDNN 9 packages
  libnvrtc.so.13: NVRTC 13: CUDA toolkit 13, or pip nvidia-cuda-nvrtc
  libcuda.so.1: the NVIDIA driver (nvidia-smi lists the GPUs when it is installed)
looked in:
  LD_LIBRARY_PATH: unset
  CUDA_HOME, CUDA_PATH: unset
  NVIDIA Python packages: no nvidia/*/lib in ROOT/usr/lib/python3/dist-packages
  system folders: ROOT/usr/lib/x86_64-linux-gnu
  and the dynamic loader's own search (its cache, /etc/ld.so.cache)
fix: install what is missing, or add the folders holding it to LD_LIBRARY_PATH`
	if got := strings.ReplaceAll(err.Error(), m.root, "ROOT"); got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
	// Each library found in no folder was asked of the loader by name,
	// the optional cuFFT included (it is loaded when present).
	wantAsked := []string{"libcublasLt.so.13", "libcublas.so.13", "libcudart.so.13", "libcurand.so.10", "libcufft.so.12", "libcudnn.so.9", "libnvrtc.so.13", "libcuda.so.1"}
	if !slices.Equal(asked, wantAsked) {
		t.Errorf("asked the loader for %v, want %v", asked, wantAsked)
	}
}

// Libraries in LD_LIBRARY_PATH, CUDA_HOME, a Python environment's
// nvidia/*/lib, an ld.so.conf include and the loader's cache are found and
// left out of the message; only the rest is listed.
func TestGPUCheckFindsLibrariesWhereTheyAre(t *testing.T) {
	m := newFakeMachine(t)
	core := m.file(t, "deps/onnxruntime/libonnxruntime.so.1")
	m.file(t, "deps/onnxruntime/libonnxruntime_providers_shared.so")
	m.file(t, "deps/onnxruntime/libonnxruntime_providers_cuda.so")
	ld := m.file(t, "ld/libcublasLt.so.13")
	cudaHome := m.file(t, "opt/cuda-13/lib64/libcublas.so.13")
	venv := m.file(t, "opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13")
	cudnn := m.file(t, "opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9")
	m.file(t, "opt/torch/.venv/bin/python3")
	drv := m.file(t, "drivers/libcuda.so.1")
	m.file(t, "etc/ld.so.conf")
	os.WriteFile(m.path("etc/ld.so.conf"), []byte("# comment\ninclude ld.so.conf.d/*.conf\n"), 0o644)
	m.file(t, "etc/ld.so.conf.d/nvidia.conf")
	os.WriteFile(m.path("etc/ld.so.conf.d/nvidia.conf"), []byte(m.path("drivers")+"  # the driver\n"), 0o644)
	m.env["LD_LIBRARY_PATH"] = m.path("ld") + ":" + m.path("no-such-folder")
	m.env["CUDA_HOME"] = m.path("opt/cuda-13")
	m.env["PATH"] = m.path("opt/torch/.venv/bin") + ":relative/bin"

	var asked []string
	s := m.search([]string{"libcurand.so.10"}, &asked)
	c := s.findGPULibs(CUDA, core)
	wantFound := map[string]string{"libcublasLt.so.13": ld, "libcublas.so.13": cudaHome, "libcudart.so.13": venv, "libcudnn.so.9": cudnn, "libcuda.so.1": drv}
	for name, p := range wantFound {
		if c.found[name] != p {
			t.Errorf("%s found at %q, want %q", name, c.found[name], p)
		}
	}
	if !slices.Equal(c.order, []string{"libcublasLt.so.13", "libcublas.so.13", "libcudart.so.13", "libcudnn.so.9", "libcuda.so.1"}) {
		t.Errorf("load order %v", c.order)
	}
	if !slices.Equal(c.byLoader, []string{"libcurand.so.10"}) {
		t.Errorf("found by the loader: %v, want [libcurand.so.10]", c.byLoader)
	}
	want := `ort: execution provider cuda cannot start: 1 library is missing:
  libnvrtc.so.13: NVRTC 13: CUDA toolkit 13, or pip nvidia-cuda-nvrtc
looked in:
  LD_LIBRARY_PATH: ROOT/ld
  CUDA_HOME, CUDA_PATH: ROOT/opt/cuda-13/lib64
  NVIDIA Python packages: ROOT/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib, ROOT/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
  system folders: ROOT/drivers
  and the dynamic loader's own search (its cache, /etc/ld.so.cache)
fix: install what is missing, or add the folders holding it to LD_LIBRARY_PATH`
	if got := strings.ReplaceAll(c.err().Error(), m.root, "ROOT"); got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}

	// With NVRTC there too, nothing is missing, and loading the found
	// files (not real libraries here) fails with the loader's reason for
	// each, naming where it was found.
	m.file(t, "opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13")
	err := s.prepare(CUDA, core, "1.29.0")
	if err == nil {
		t.Fatal("prepare loaded fake libraries")
	}
	msg := strings.ReplaceAll(err.Error(), m.root, "ROOT")
	if !strings.HasPrefix(msg, "ort: execution provider cuda cannot start: 6 of its libraries do not load:\n  libcublasLt.so.13: found at ROOT/ld/libcublasLt.so.13, but it does not load: ") {
		t.Errorf("message:\n%s", msg)
	}
	for name := range wantFound {
		if !strings.Contains(msg, "  "+name+": found at ") {
			t.Errorf("message lacks %s:\n%s", name, msg)
		}
	}
	if !strings.Contains(msg, "file too short") && !strings.Contains(msg, "invalid ELF header") {
		t.Errorf("message lacks the loader's reason:\n%s", msg)
	}
}

// tensorrt without TensorRT says so, beside the CUDA libraries it needs
// too; with TensorRT's libraries present that line is gone.
func TestGPUCheckTensorRTWithoutTensorRTSaysSo(t *testing.T) {
	m := newFakeMachine(t)
	core := m.file(t, "deps/onnxruntime/libonnxruntime.so.1")
	m.file(t, "deps/onnxruntime/libonnxruntime_providers_shared.so")
	m.file(t, "deps/onnxruntime/libonnxruntime_providers_tensorrt.so")
	var asked []string
	err := m.search(nil, &asked).findGPULibs(TensorRT, core).err()
	msg := err.Error()
	for _, s := range []string{"execution provider tensorrt cannot start: 9 libraries are missing:\n  libnvinfer.so.10: TensorRT 10", "  libnvonnxparser.so.10: ", "  libcudnn.so.9: ",
		"\nTensorRT is not installed on this machine: install TensorRT 10 for CUDA 13, or run with the cuda provider, which does not need it\n"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	m.file(t, "usr/lib/x86_64-linux-gnu/libnvinfer.so.10")
	m.file(t, "usr/lib/x86_64-linux-gnu/libnvonnxparser.so.10")
	msg = m.search(nil, &asked).findGPULibs(TensorRT, core).err().Error()
	if strings.Contains(msg, "TensorRT is not installed") || strings.Contains(msg, "libnvinfer") || !strings.Contains(msg, "7 libraries are missing") {
		t.Errorf("with TensorRT's libraries present:\n%s", msg)
	}
}

// Providers of another ONNX Runtime version than the loaded core are
// refused before anything is loaded.
func TestGPUCheckRefusesProvidersOfAnotherVersion(t *testing.T) {
	m := newFakeMachine(t)
	core := m.file(t, "deps/onnxruntime/libonnxruntime.so.1")
	os.WriteFile(m.path("deps/onnxruntime/providers.version"), []byte("1.29.0\n"), 0o644)
	var asked []string
	err := m.search(nil, &asked).prepare(CUDA, core, "1.24.3")
	want := "ort: the execution providers beside " + core + " were built for ONNX Runtime 1.29.0, but that library is 1.24.3: run make setup and MLPERF_GPU=1 make setup again (both install 1.29.0)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if len(asked) != 0 {
		t.Errorf("loaded %v before refusing", asked)
	}
}

// ld.so.conf: comments, relative include globs, nested includes and
// comma- or space-separated folders.
func TestLdConfDirsFollowsIncludes(t *testing.T) {
	m := newFakeMachine(t)
	write := func(rel, s string) {
		m.file(t, rel)
		os.WriteFile(m.path(rel), []byte(s), 0o644)
	}
	write("etc/ld.so.conf", "/a # first\ninclude /nowhere/*.conf\ninclude ld.so.conf.d/*.conf\nhwcap 0 nosegneg\n")
	write("etc/ld.so.conf.d/1.conf", "/b,/c /d\ninclude "+m.path("etc/more.conf")+"\n")
	write("etc/ld.so.conf.d/2.conf", "\n\n/e\n")
	write("etc/more.conf", "/f\n")
	got := ldConfDirs(m.path("etc/ld.so.conf"), 0)
	if want := []string{"/a", "/b", "/c", "/d", "/f", "/e"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	write("etc/loop.conf", "include "+m.path("etc/loop.conf")+"\n/g\n")
	if got := ldConfDirs(m.path("etc/loop.conf"), 0); len(got) != 5 {
		t.Errorf("a self-including file gave %v, want /g five times (depth bound)", got)
	}
}
