package benchmark

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"sync"
	"time"
)

// Progress prints a progress line (done/total, percentage, rate, elapsed
// seconds, ETA) at most every interval: rewritten in place on a terminal
// (every 250 ms), one line every 5 s otherwise, and nothing when the
// environment variable CI is set and the output is not a terminal. It is
// safe for concurrent use.
type Progress struct {
	w        io.Writer
	what     string
	unit     string
	tty      bool
	interval time.Duration

	quiet bool // CI without a terminal: print nothing

	now func() time.Time // time.Now; a test's clock

	mu      sync.Mutex
	start   time.Time
	last    time.Time
	printed bool
}

// NewProgress returns a Progress writing to w about what ("loading
// samples") counted in unit ("images").
func NewProgress(w io.Writer, what, unit string) *Progress {
	p := &Progress{w: w, what: what, unit: unit, interval: 5 * time.Second, now: time.Now}
	p.start = p.now()
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty, p.interval = true, 250*time.Millisecond
		}
	}
	p.last = p.start
	p.quiet = !p.tty && os.Getenv("CI") != ""
	return p
}

// Update reports done of total (total ≤ 0: unknown). A call with done ≤ 1
// and a known total starts a new series (one LoadSamples call, say).
func (p *Progress) Update(done, total int) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if done <= 1 && total > 0 {
		p.start, p.last = now, now
	}
	if now.Sub(p.last) < p.interval && (total <= 0 || done < total) {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el
	}
	line := fmt.Sprintf("%s: %d %s", p.what, done, p.unit)
	if total > 0 {
		line = fmt.Sprintf("%s: %d/%d %s (%.0f%%)", p.what, done, total, p.unit, 100*float64(done)/float64(total))
		if rate > 0 && done < total {
			line += fmt.Sprintf(", ETA %.0fs", float64(total-done)/rate)
		}
	}
	line += fmt.Sprintf(", %.1f/s, %.0fs", rate, el)
	p.emit(line)
}

// Show prints line as the progress line (rewritten in place on a
// terminal), at most every interval unless force is set.
func (p *Progress) Show(line string, force bool) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !force && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	p.emit(line)
}

// Note prints line on a line of its own, even in CI: a warning or a note
// that must not be lost among progress lines. On a terminal the progress
// line is redrawn below it at the next update.
func (p *Progress) Note(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.printed {
		fmt.Fprint(p.w, "\r\033[K")
		p.printed = false
	}
	fmt.Fprintln(p.w, line)
}

// emit writes line; p.mu is held.
func (p *Progress) emit(line string) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.printed = true
}

// Done ends the progress line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.printed {
		fmt.Fprintln(p.w)
	}
}

var _ spec.Progress = (*Progress)(nil)
