package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

// The revision comes from the toolchain's VCS stamp first, then a module
// version, then the Makefile's stamp; with none it says how to get one.
func TestRevisionPrefersTheVCSStamp(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		for i := 0; i < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	for _, c := range []struct {
		name    string
		bi      *debug.BuildInfo
		stamped string
		want    string
	}{
		{"clone", vcs("vcs", "git", "vcs.revision", "abc123", "vcs.modified", "false"), "zzz", "abc123"},
		{"clone with changes", vcs("vcs.revision", "abc123", "vcs.modified", "true"), "", "abc123+modified"},
		{"worktree via make", vcs("-buildmode", "exe"), "def456", "def456"},
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "v1.2.3"},
		{"no build info", nil, "def456", "def456"},
	} {
		if got := Revision(c.bi, c.stamped); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := Revision(vcs(), ""); !strings.HasPrefix(got, "unknown (") || !strings.Contains(got, "make build") {
		t.Errorf("no revision anywhere: %q", got)
	}
}
