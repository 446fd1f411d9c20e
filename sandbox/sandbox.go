package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Errors wrapped by this package's errors.
var (
	// ErrToolchainMissing: a command a language needs is not installed
	// (MissingToolError says which and the package that provides it).
	ErrToolchainMissing = errors.New("sandbox: toolchain missing")
	// ErrUnavailable: the machine cannot run a sandbox at all (not Linux,
	// no prlimit, a temporary folder the sandbox user cannot reach).
	ErrUnavailable = errors.New("sandbox: unavailable")
	// ErrBadFile: a file name that is not a plain relative path.
	ErrBadFile = errors.New("sandbox: bad file name")
)

// Limits bound one Step. A zero field takes the Sandbox's value (its
// Config.Limits, whose zero fields take DefaultLimits).
type Limits struct {
	// Wall is the wall-clock time after which the whole process tree is
	// killed (verdict WallTimeout).
	Wall time.Duration
	// CPU is the CPU time of each process (RLIMIT_CPU, whole seconds,
	// rounded up): SIGXCPU at the limit, SIGKILL a second later.
	CPU time.Duration
	// Memory is the address space of each process in bytes (RLIMIT_AS).
	Memory int64
	// Procs is the number of processes and threads the program may have at
	// once (RLIMIT_NPROC of its user).
	Procs int
	// Output is the number of bytes kept of stdout and of stderr each;
	// writing more kills the tree (verdict OutputLimit).
	Output int64
	// FileSize is the largest file a process may write (RLIMIT_FSIZE).
	FileSize int64
	// Disk is the space the folder may use, checked every 100 ms; more
	// kills the tree (verdict DiskLimit).
	Disk int64
	// OpenFiles is the number of open files per process (RLIMIT_NOFILE).
	OpenFiles int
}

// DefaultLimits are the limits of a Sandbox whose Config leaves them zero:
// the 20 s that mlcommons/inference language/mixtral-8x7b/evaluate_mbxp.py
// gives each MBXP program, and 4 GiB of address space, which a JVM needs
// to start with its default heap.
var DefaultLimits = Limits{
	Wall:      20 * time.Second,
	CPU:       20 * time.Second,
	Memory:    4 << 30,
	Procs:     512,
	Output:    16 << 20,
	FileSize:  256 << 20,
	Disk:      1 << 30,
	OpenFiles: 1024,
}

// or fills l's zero fields from d.
func (l Limits) or(d Limits) Limits {
	if l.Wall == 0 {
		l.Wall = d.Wall
	}
	if l.CPU == 0 {
		l.CPU = d.CPU
	}
	if l.Memory == 0 {
		l.Memory = d.Memory
	}
	if l.Procs == 0 {
		l.Procs = d.Procs
	}
	if l.Output == 0 {
		l.Output = d.Output
	}
	if l.FileSize == 0 {
		l.FileSize = d.FileSize
	}
	if l.Disk == 0 {
		l.Disk = d.Disk
	}
	if l.OpenFiles == 0 {
		l.OpenFiles = d.OpenFiles
	}
	return l
}

// check refuses negative limits and limits too small for any program.
func (l Limits) check() error {
	switch {
	case l.Wall < 0, l.CPU < 0, l.Memory < 0, l.Procs < 0, l.Output < 0, l.FileSize < 0, l.Disk < 0, l.OpenFiles < 0:
		return fmt.Errorf("sandbox: negative limit in %+v", l)
	case l.Procs > 0 && l.Procs < 2:
		return fmt.Errorf("sandbox: Procs %d: a program needs at least 2 (itself and the limit setter)", l.Procs)
	case l.OpenFiles > 0 && l.OpenFiles < 8:
		return fmt.Errorf("sandbox: OpenFiles %d: a program needs at least 8", l.OpenFiles)
	case l.Memory > 0 && l.Memory < 16<<20:
		return fmt.Errorf("sandbox: Memory %d bytes: below the 16 MiB any interpreter needs", l.Memory)
	}
	return nil
}

// Verdict is how a Step ended.
type Verdict int

// The verdicts. Only OK is a success.
const (
	OK          Verdict = iota // exited with status 0
	Exited                     // exited with a non-zero status
	Signaled                   // killed by a signal not sent for a limit
	WallTimeout                // killed at Limits.Wall
	CPULimit                   // killed at Limits.CPU
	OutputLimit                // killed for writing more than Limits.Output
	DiskLimit                  // killed for using more than Limits.Disk
	Canceled                   // killed because the context ended
)

var verdictNames = [...]string{"ok", "exited", "signaled", "wall-timeout", "cpu-limit", "output-limit", "disk-limit", "canceled"}

// String names the verdict: ok, exited, signaled, wall-timeout, cpu-limit,
// output-limit, disk-limit, canceled.
func (v Verdict) String() string {
	if int(v) >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Result is the outcome of one Step.
type Result struct {
	Verdict  Verdict
	ExitCode int    // the exit status; -1 when a signal ended the program
	Signal   string // the signal that ended it ("killed", "cpu time limit exceeded", ...), "" when it exited
	// Stdout and Stderr hold at most Limits.Output bytes each.
	Stdout, Stderr []byte
	Wall           time.Duration // from start to exit
	CPU            time.Duration // user + system time of the program and the children it waited for
}

// String sums the result up, e.g. "exited with status 1" or "wall-timeout
// after 20s".
func (r Result) String() string {
	switch r.Verdict {
	case OK:
		return "ok"
	case Exited:
		return fmt.Sprintf("exited with status %d", r.ExitCode)
	case Signaled:
		return "killed by signal: " + r.Signal
	default:
		return fmt.Sprintf("%s after %s", r.Verdict, r.Wall.Round(time.Millisecond))
	}
}

// Step is one command run in a Folder.
type Step struct {
	// Argv is the command: Argv[0] is a tool name looked up in the
	// Sandbox's tool folders, or a path starting with "./" inside the
	// folder (a compiled program).
	Argv   []string
	Stdin  []byte   // the program's standard input (empty: end of file at once)
	Env    []string // more NAME=value variables
	Limits Limits   // zero fields: the Sandbox's
}

// Config configures a Sandbox. The zero value is usable.
type Config struct {
	// Limits of every Step; zero fields take DefaultLimits.
	Limits Limits
	// TempDir holds the per-program folders (default os.TempDir()).
	TempDir string
	// ToolDirs are searched for commands, in order (default
	// DefaultToolDirs()). The programs' PATH is these folders.
	ToolDirs []string
	// Env are NAME=value variables given to every program (after PATH,
	// HOME, TMPDIR and LANG, which the sandbox sets).
	Env []string
	// UIDFirst and UIDCount, as root, are the range the per-folder user
	// ids are drawn from (default 1592590336 = 0x5EED0000, 65536 ids).
	UIDFirst, UIDCount uint32
}

// Isolation says what a Sandbox could set up on this machine.
type Isolation struct {
	// Network: programs run in a new network namespace (no network).
	Network bool
	// PIDNamespace: programs run in a new PID namespace, so their whole
	// process tree dies with them.
	PIDNamespace bool
	// OwnUser: programs run as a user id of their own (as root), which
	// owns only the program's folder.
	OwnUser bool
	// UserNamespace: programs run in a new user namespace (not root).
	UserNamespace bool
	// Notes say what is missing and why, one sentence each.
	Notes []string
}

// String lists the isolation in one line, e.g. "network namespace, PID
// namespace, own user id".
func (i Isolation) String() string {
	var p []string
	if i.Network {
		p = append(p, "network namespace")
	}
	if i.PIDNamespace {
		p = append(p, "PID namespace")
	}
	if i.OwnUser {
		p = append(p, "own user id")
	}
	if i.UserNamespace {
		p = append(p, "user namespace")
	}
	if len(p) == 0 {
		p = append(p, "process group only")
	}
	s := strings.Join(p, ", ")
	if len(i.Notes) > 0 {
		s += " (" + strings.Join(i.Notes, "; ") + ")"
	}
	return s
}

// DefaultToolDirs are the system folders, then the folders of $PATH.
func DefaultToolDirs() []string {
	dirs := []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	return dedupe(dirs)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		v = filepath.Clean(v)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// checkName refuses a file name that is not a plain relative path inside
// the folder.
func checkName(name string) error {
	if name == "" || filepath.IsAbs(name) || strings.ContainsRune(name, 0) || filepath.Clean(name) != name || name == "." || strings.HasPrefix(name, "../") || name == ".." {
		return fmt.Errorf("%w: %q (want a relative path inside the folder)", ErrBadFile, name)
	}
	return nil
}
