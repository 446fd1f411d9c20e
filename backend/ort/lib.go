// Package ort runs ONNX models with ONNX Runtime, implementing
// backend.Session. It is the only package that imports onnxruntime_go; it
// loads the ONNX Runtime shared library at run time (dlopen) by absolute
// path:
//
//  1. ONNXRUNTIME_SHARED_LIBRARY_PATH, when set;
//  2. $MLPERF_DEPS/onnxruntime/libonnxruntime.so.1, when MLPERF_DEPS is set;
//  3. .deps/onnxruntime/libonnxruntime.so.1 in the working directory or any
//     parent, then beside the executable or in its parent directory (where
//     `make setup` installs it);
//  4. the per-user deps folder (deps.UserDir: $XDG_DATA_HOME/mlperf-go/deps,
//     by default ~/.local/share/mlperf-go/deps, where `make setup` installs
//     a copy), for a binary run from anywhere or installed with go install.
//
// Steps 2 to 4 are package internal/deps's search.
//
// The library is loaded once per process, on the first Open. The cuda and
// tensorrt providers are files beside it (libonnxruntime_providers_*.so,
// which `make setup-gpu` installs); before ONNX Runtime loads one, the
// CUDA libraries it needs are looked for where they are and loaded (see
// Ready, and README.md beside this file).
package ort

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mlperf-go/inference/internal/deps"
	onnxruntime "github.com/yalue/onnxruntime_go"
)

// EnvLibrary names the variable that overrides the library path.
const EnvLibrary = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

// EnvDeps names the variable holding the deps folder of `make setup`.
const EnvDeps = deps.Env

// relLibrary is the library's place inside the deps folder.
const relLibrary = "onnxruntime/libonnxruntime.so.1"

// ErrNoLibrary reports that the ONNX Runtime library cannot be found or
// loaded.
var ErrNoLibrary = errors.New("ort: ONNX Runtime library unavailable")

var (
	initMu   sync.Mutex
	initPath string
)

// LibraryPath returns the absolute path of the library this package loads
// (or has loaded), or an error wrapping ErrNoLibrary that names where it
// looked and how to fix it.
func LibraryPath() (string, error) {
	initMu.Lock()
	p := initPath
	initMu.Unlock()
	if p != "" {
		return p, nil
	}
	cwd, _ := os.Getwd()
	exe, _ := os.Executable()
	return findLibrary(os.Getenv, cwd, exe)
}

func findLibrary(getenv func(string) string, cwd, exe string) (string, error) {
	if p := getenv(EnvLibrary); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("%w: %s=%q: %v", ErrNoLibrary, EnvLibrary, p, err)
		}
		if !isFile(abs) {
			return "", fmt.Errorf("%w: %s (from %s) does not exist; run make setup, or point %s at libonnxruntime.so",
				ErrNoLibrary, abs, EnvLibrary, EnvLibrary)
		}
		return abs, nil
	}
	p, err := deps.Lookup{Getenv: getenv, Cwd: cwd, Exe: exe}.Find(relLibrary)
	if err != nil {
		return "", fmt.Errorf("%w: %w, or set %s to the library file", ErrNoLibrary, err, EnvLibrary)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if !isFile(p) {
		return "", fmt.Errorf("%w: %s is not a file; run make setup again, or set %s to the library file", ErrNoLibrary, p, EnvLibrary)
	}
	return p, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Init loads the ONNX Runtime library (see the package doc) unless it is
// already loaded. Open calls it; call it directly to fail early. Safe for
// concurrent use.
func Init() error {
	initMu.Lock()
	defer initMu.Unlock()
	if onnxruntime.IsInitialized() {
		return nil
	}
	cwd, _ := os.Getwd()
	exe, _ := os.Executable()
	p, err := findLibrary(os.Getenv, cwd, exe)
	if err != nil {
		return err
	}
	onnxruntime.SetSharedLibraryPath(p)
	if err := onnxruntime.InitializeEnvironment(onnxruntime.WithLogLevelError()); err != nil {
		return fmt.Errorf("%w: load %s: %v (run make setup to reinstall it)", ErrNoLibrary, p, err)
	}
	initPath = p
	return nil
}

// Version returns the loaded ONNX Runtime version, loading it if needed.
func Version() (string, error) {
	if err := Init(); err != nil {
		return "", err
	}
	return onnxruntime.GetVersion(), nil
}
