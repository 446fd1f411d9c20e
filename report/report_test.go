package report

import (
	"bytes"
	"context"
	"encoding/binary"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// tokenSUT answers each sample with 4 int32 tokens, the first one early.
type tokenSUT struct{}

func (tokenSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	for _, s := range samples {
		data := make([]byte, 16)
		binary.LittleEndian.PutUint32(data, uint32(s.Index))
		if tc, ok := c.(loadgen.TokenCompleter); ok {
			tc.FirstToken(s.ID, data[:4])
		}
		c.Complete(loadgen.Response{ID: s.ID, Data: data, Tokens: 4})
	}
}

func run(t *testing.T, dir string, sc loadgen.Scenario, sut loadgen.SUT, conf string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "user.conf")
	os.WriteFile(p, []byte(conf), 0o644)
	s, err := loadgen.LoadConfigs("resnet50", sc, loadgen.PerformanceOnly, "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir, logs.EnableTrace = dir, true
	if _, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
		t.Fatal(err)
	}
}

// tree makes a folder with a traced Offline run, a traced SingleStream run
// of a slow SUT and an LLM Server run with token latencies.
func tree(t *testing.T) string {
	root := t.TempDir()
	delay := &loadgentest.DelaySUT{ServiceTime: 200 * time.Microsecond}
	defer delay.Close()
	run(t, filepath.Join(root, "offline"), loadgen.Offline, delay, "*.Offline.target_qps = 2000\n*.*.min_duration = 100\n*.Offline.min_query_count = 100\n")
	run(t, filepath.Join(root, "singlestream"), loadgen.SingleStream, delay, "*.SingleStream.target_latency = 0.3\n*.*.min_duration = 100\n*.*.min_query_count = 100\n")
	run(t, filepath.Join(root, "llm", "Server"), loadgen.Server, tokenSUT{}, "*.*.use_token_latencies = 1\n*.Server.target_qps = 1000\n*.*.min_duration = 100\n*.*.min_query_count = 100\n")
	return root
}

func TestReportIsSelfContainedAndShowsEveryRun(t *testing.T) {
	root := tree(t)
	var b bytes.Buffer
	if err := Write(&b, root); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"offline", "singlestream", "llm/Server", "Offline", "SingleStream", "Server",
		"Latency histogram (ms)", "Latency over time", "Completed samples per second over time",
		"Time to first token percentiles (ms)", "Time per output token percentiles (ms)", "Settings in effect", "samples/s"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// No network: nothing is loaded from elsewhere (the SVG namespace is a
	// name, not a fetch).
	if m := regexp.MustCompile(`(?i)(src=|href="http|@import|url\(|<script)`).FindString(html); m != "" {
		t.Errorf("report loads something: %q", m)
	}
	if n := strings.Count(html, "<svg"); n < 8 {
		t.Errorf("%d charts", n)
	}
	// One row per run in the summary table.
	if n := strings.Count(html, `<tr><td><a href="#run`); n != 3 {
		t.Errorf("%d summary rows, want 3", n)
	}
}

func TestMainWritesTheFile(t *testing.T) {
	root := tree(t)
	out := filepath.Join(t.TempDir(), "r.html")
	var stderr bytes.Buffer
	if err := Main(context.Background(), []string{root, "--out", out}, &stderr, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	if st, err := os.Stat(out); err != nil || st.Size() < 1000 {
		t.Fatalf("%v", err)
	}
	if err := Main(context.Background(), []string{t.TempDir()}, &stderr, &stderr); err == nil || !strings.Contains(err.Error(), "no mlperf_log_detail.txt") {
		t.Fatalf("empty folder: %v", err)
	}
}

// The page renders in a real browser: Debian's chromium, headless, draws
// it to a PNG that is not blank.
func TestReportRendersInChromium(t *testing.T) {
	browser := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	root := tree(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, _ := os.Create(page)
	if err := Write(f, root); err != nil {
		t.Fatal(err)
	}
	f.Close()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=1200,1600", "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	pf, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatal(err)
	}
	// Count pixels of the chart colour (#4a7fb5): the bars were drawn.
	blue := 0
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 2 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 == 0x4a && g>>8 == 0x7f && b>>8 == 0xb5 {
				blue++
			}
		}
	}
	if blue < 100 {
		t.Fatalf("screenshot shows %d chart pixels", blue)
	}
}

// A path of the wrong kind is named with what to give instead, and a
// failed report leaves an earlier output file alone.
func TestMainRefusesPathsOfTheWrongKind(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	os.WriteFile(out, []byte("earlier report"), 0o644)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("x"), 0o644)
	summary := filepath.Join(dir, "mlperf_log_summary.txt")
	os.WriteFile(summary, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{notes, "--out", out}, notes + " is a file, not a folder; give a run folder"},
		{[]string{summary, "--out", out}, "give the run folder that holds it (" + dir + ")"},
		{[]string{filepath.Join(dir, "missing"), "--out", out}, "missing does not exist; give a run folder"},
		{[]string{dir, "other", "--out", out}, `unexpected argument "other"`},
		{[]string{tree(t), "--out", dir}, "--out " + dir + " is a folder; give the HTML file to write"},
		{[]string{tree(t), "--out", filepath.Join(dir, "no", "r.html")}, "the folder " + filepath.Join(dir, "no") + " does not exist"},
	} {
		var stderr bytes.Buffer
		err := Main(context.Background(), c.args, &stderr, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "earlier report" {
		t.Fatalf("a failed report changed %s: %q", out, b)
	}
	// A detail log named directly is its run folder.
	root := tree(t)
	dirs, err := Find(root)
	if err != nil || len(dirs) == 0 {
		t.Fatal(err)
	}
	one, err := Find(filepath.Join(dirs[0], "mlperf_log_detail.txt"))
	if err != nil || len(one) != 1 || one[0] != dirs[0] {
		t.Fatalf("Find of a detail log: %v %v", one, err)
	}
}
