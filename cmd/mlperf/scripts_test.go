package main

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
)

// Every registered benchmark's folder has the four scripts the README
// promises, executable, valid bash, each exercised by a test of its
// package (its name appears in a _test.go file there).
func TestEveryBenchmarkHasItsFourScripts(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, name := range spec.Names() {
		// The benchmark's folder is its driver's package (models/llama3
		// registers llama3.1-8b).
		b, _ := spec.Lookup(name)
		pkg := reflect.TypeOf(b.Driver).PkgPath()
		if pkg == "" && reflect.TypeOf(b.Driver).Kind() == reflect.Pointer {
			pkg = reflect.TypeOf(b.Driver).Elem().PkgPath()
		}
		dir := filepath.Join("..", "..", "models", path.Base(pkg))
		tests := ""
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			tests += string(b)
		}
		for _, s := range []string{"download_model.sh", "download_dataset.sh", "verify_dataset.sh", "run_and_time.sh"} {
			p := filepath.Join(dir, s)
			st, err := os.Stat(p)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if st.Mode()&0o111 == 0 {
				t.Errorf("%s is not executable", p)
			}
			if out, err := exec.Command(bash, "-n", p).CombinedOutput(); err != nil {
				t.Errorf("%s: bash -n: %v\n%s", p, err, out)
			}
			if !regexp.MustCompile(`"` + regexp.QuoteMeta(s) + `"`).MatchString(tests) {
				t.Errorf("%s: no test of models/%s runs %s", name, name, s)
			}
		}
	}
}
