package ort_test

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The setup steps that install ONNX Runtime (scripts/setup.d/20- and
// 25-onnxruntime*.sh) fetch npm tarballs through scripts/npm-tarball.sh;
// MLPERF_NPM_TARBALLS makes them read a folder instead of npm, which is how
// these tests give them tarballs of the wrong content.

func setupScript(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: the setup scripts need it")
	}
	p, err := filepath.Abs(filepath.Join("..", "..", "scripts", "setup.d", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeTarball writes dir/file as an npm-style .tgz holding files (path
// under package/ → content) and returns its sha256.
func fakeTarball(t *testing.T, dir, file string, files map[string]string) string {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
	b, _ := os.ReadFile(filepath.Join(dir, file))
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func runSetup(t *testing.T, script, deps string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", script, deps)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Without MLPERF_GPU=1 the GPU step does nothing: make setup stays CPU only.
func TestSetupGPUDoesNothingUnlessAsked(t *testing.T) {
	script := setupScript(t, "25-onnxruntime-gpu.sh")
	deps := t.TempDir()
	out, err := runSetup(t, script, deps, "MLPERF_GPU=", "MLPERF_NPM_TARBALLS="+t.TempDir())
	if err != nil || out != "" {
		t.Fatalf("got %q, %v; want silence and success", out, err)
	}
	if entries, _ := os.ReadDir(deps); len(entries) != 0 {
		t.Errorf("the deps folder got %v", entries)
	}
}

// A GPU tarball whose sha256 is not the pinned one is deleted, the message
// names it with both sums, and nothing is installed (no provider, no
// version file, no temporary folder left).
func TestSetupGPURefusesTarballWithWrongChecksum(t *testing.T) {
	script := setupScript(t, "25-onnxruntime-gpu.sh")
	deps, mirror := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(deps, "onnxruntime"), 0o755)
	os.WriteFile(filepath.Join(deps, "onnxruntime", "libonnxruntime.so.1"), []byte("core"), 0o644)
	file := "com.github.asus4.onnxruntime.linux-x64-gpu-0.4.9.tgz"
	sum := fakeTarball(t, mirror, file, map[string]string{
		"Plugins/Linux/x64/libonnxruntime_providers_shared.so":   "x",
		"Plugins/Linux/x64/libonnxruntime_providers_cuda.so":     "x",
		"Plugins/Linux/x64/libonnxruntime_providers_tensorrt.so": "x",
	})
	out, err := runSetup(t, script, deps, "MLPERF_GPU=1", "MLPERF_NPM_TARBALLS="+mirror)
	if err == nil {
		t.Fatalf("a tarball of the wrong checksum was accepted:\n%s", out)
	}
	want := "install-onnxruntime-gpu: checksum mismatch for " + file + ": sha256 " + sum +
		", want 2b459e0c17f340c92970c10ed86de4f37a3009f93c14053e6ad4334cbb6be412; the tarball was deleted and nothing was installed"
	if !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	entries, _ := os.ReadDir(filepath.Join(deps, "onnxruntime"))
	if len(entries) != 1 || entries[0].Name() != "libonnxruntime.so.1" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("deps/onnxruntime holds %v, want only libonnxruntime.so.1", names)
	}
}

// The CPU library's step checks the same way and leaves an installed
// library alone when the new tarball is bad.
func TestSetupCPURefusesTarballWithWrongChecksum(t *testing.T) {
	script := setupScript(t, "20-onnxruntime.sh")
	deps, mirror := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(deps, "onnxruntime"), 0o755)
	lib := filepath.Join(deps, "onnxruntime", "libonnxruntime.so.1")
	os.WriteFile(lib, []byte("old"), 0o644)
	sum := fakeTarball(t, mirror, "onnxruntime-node-1.29.0.tgz", map[string]string{"bin/napi-v6/linux/x64/libonnxruntime.so.1": "evil"})
	out, err := runSetup(t, script, deps, "MLPERF_NPM_TARBALLS="+mirror)
	if err == nil || !strings.Contains(out, "install-onnxruntime: checksum mismatch for onnxruntime-node-1.29.0.tgz: sha256 "+sum+", want cfdfb45ec4044b1fdca43e5d2e180fb6817e649ff8ad1e0dfc90e18e51b67037") {
		t.Fatalf("got %v:\n%s", err, out)
	}
	if b, _ := os.ReadFile(lib); string(b) != "old" {
		t.Errorf("the installed library changed to %q", b)
	}
}

// Missing inputs are named with their fix: the tarball in the mirror
// folder, and the core library the providers go beside.
func TestSetupGPUNamesWhatIsMissing(t *testing.T) {
	script := setupScript(t, "25-onnxruntime-gpu.sh")
	deps, mirror := t.TempDir(), t.TempDir()
	out, err := runSetup(t, script, deps, "MLPERF_GPU=1", "MLPERF_NPM_TARBALLS="+mirror)
	if err == nil || !strings.Contains(out, filepath.Join(deps, "onnxruntime", "libonnxruntime.so.1")+" is missing: run make setup first") {
		t.Errorf("no core: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(deps, "onnxruntime"), 0o755)
	os.WriteFile(filepath.Join(deps, "onnxruntime", "libonnxruntime.so.1"), []byte("core"), 0o644)
	out, err = runSetup(t, script, deps, "MLPERF_GPU=1", "MLPERF_NPM_TARBALLS="+mirror)
	if err == nil || !strings.Contains(out, filepath.Join(mirror, "com.github.asus4.onnxruntime.linux-x64-gpu-0.4.9.tgz")+" not found (MLPERF_NPM_TARBALLS is set") {
		t.Errorf("no tarball: %v\n%s", err, out)
	}
}
