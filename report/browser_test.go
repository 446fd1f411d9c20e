package report

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium returns the headless browser to render with, or skips the
// test saying why.
func chromium(t *testing.T) string {
	t.Helper()
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	t.Skip("no headless browser: chromium is not installed (apt-get install chromium, or MLPERF_SETUP_BROWSER=1 make setup); the report pages were not rendered in a browser")
	return ""
}

// browse runs headless chromium on page with one of --screenshot=FILE or
// --dump-dom and returns its standard output.
func browse(t *testing.T, browser, page string, height int, action string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--window-size=1360," + strconv.Itoa(height), action, "file://" + page}
	cmd := exec.CommandContext(ctx, browser, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, action, err, stderr.String())
	}
	return out
}

// inked counts the pixels of a chart colour (the first series' blue,
// #2f6db5, and the bars' and lines' neighbours within a few steps).
func inked(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if d(r>>8, 0x2f) < 12 && d(g>>8, 0x6d) < 12 && d(bl>>8, 0xb5) < 12 {
				n++
			}
		}
	}
	return n
}

func d(a uint32, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// Each report kind renders in a real browser: headless Chromium draws the
// page to a PNG with its charts inked, and its DOM, as the browser built
// it, holds every chart and table of the page. With MLPERF_REPORT_SHOTS
// set, the screenshots are kept in that folder.
func TestReportsRenderInChromium(t *testing.T) {
	browser := chromium(t)
	f := runs(t)
	shots := os.Getenv("MLPERF_REPORT_SHOTS")
	dir := t.TempDir()
	for _, k := range []struct {
		name   string
		o      Options
		height int
		charts int // at least
	}{
		{"server", Options{Paths: []string{f.server}}, 2700, 5},
		{"llm", Options{Paths: []string{f.llm}}, 3300, 8},
		{"remote", Options{Paths: []string{f.remote}}, 3000, 6},
		{"accuracy", Options{Paths: []string{f.accuracy}}, 900, 0},
		{"multistream-invalid", Options{Paths: []string{f.invalidMulti}}, 2200, 3},
		{"tree", Options{Paths: []string{base}}, 1400, 0},
		{"compare", Options{Paths: []string{f.server, f.serverSlower}}, 1800, 5},
	} {
		t.Run(k.name, func(t *testing.T) {
			page := filepath.Join(dir, k.name+".html")
			if err := WriteFile(page, k.o); err != nil {
				t.Fatal(err)
			}
			src, _ := os.ReadFile(page)
			shot := filepath.Join(dir, k.name+".png")
			browse(t, browser, page, k.height, "--screenshot="+shot)
			pf, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(pf)
			pf.Close()
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 1360 || b.Dy() != k.height {
				t.Errorf("screenshot %v, want 1360×%d", b, k.height)
			}
			if n := inked(img); k.charts > 0 && n < 200 {
				t.Errorf("the screenshot shows %d chart pixels: the charts were not drawn", n)
			}
			dom := string(browse(t, browser, page, k.height, "--dump-dom"))
			for _, tag := range []string{"<svg", "<table", "data-mark="} {
				if a, b := strings.Count(string(src), tag), strings.Count(dom, tag); a != b {
					t.Errorf("%s: the page has %d, the browser's DOM %d", tag, a, b)
				}
			}
			if n := strings.Count(dom, "<svg"); n < k.charts {
				t.Errorf("%d charts in the DOM, want at least %d", n, k.charts)
			}
			if regexp.MustCompile(`(?i)<parsererror|This page contains the following errors`).MatchString(dom) {
				t.Error("the browser reports a parse error")
			}
			if shots != "" {
				os.MkdirAll(shots, 0o755)
				b, _ := os.ReadFile(shot)
				os.WriteFile(filepath.Join(shots, "report-"+k.name+".png"), b, 0o644)
			}
		})
	}
}
