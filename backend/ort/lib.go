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
//  4. the per-user deps folder (UserDepsDir: $XDG_DATA_HOME/mlperf-go/deps,
//     by default ~/.local/share/mlperf-go/deps), for a binary run from
//     anywhere or installed with go install.
//
// The library is loaded once per process, on the first Open.
package ort

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	onnxruntime "github.com/yalue/onnxruntime_go"
)

// EnvLibrary names the variable that overrides the library path.
const EnvLibrary = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

// EnvDeps names the variable holding the deps folder of `make setup`.
const EnvDeps = "MLPERF_DEPS"

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
	var tried []string
	seen := map[string]bool{}
	try := func(p string) bool {
		if p == "" || seen[p] {
			return false
		}
		seen[p] = true
		tried = append(tried, p)
		return isFile(p)
	}
	if d := getenv(EnvDeps); d != "" {
		if abs, err := filepath.Abs(filepath.Join(d, relLibrary)); err == nil && try(abs) {
			return abs, nil
		}
	}
	if cwd != "" {
		for dir := cwd; ; dir = filepath.Dir(dir) {
			if p := filepath.Join(dir, ".deps", relLibrary); try(p) {
				return p, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if exe != "" {
		d := filepath.Dir(exe)
		for _, dir := range []string{d, filepath.Dir(d)} {
			if p := filepath.Join(dir, ".deps", relLibrary); try(p) {
				return p, nil
			}
		}
	}
	if d := userDepsDir(getenv); d != "" {
		if p := filepath.Join(d, relLibrary); try(p) {
			return p, nil
		}
	}
	where := ""
	if d := userDepsDir(getenv); d != "" {
		where = ", install it in " + filepath.Join(d, relLibrary)
	}
	return "", fmt.Errorf("%w: libonnxruntime.so.1 not found (looked at %s); run make setup%s, or set %s",
		ErrNoLibrary, strings.Join(tried, ", "), where, EnvLibrary)
}

// UserDepsDir is the per-user deps folder searched after the project's
// .deps folders: $XDG_DATA_HOME/mlperf-go/deps, or
// ~/.local/share/mlperf-go/deps ("" when neither variable is set). A
// setup that installs there makes the binary work from any folder.
func UserDepsDir() string { return userDepsDir(os.Getenv) }

func userDepsDir(getenv func(string) string) string {
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mlperf-go", "deps")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "mlperf-go", "deps")
	}
	return ""
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
