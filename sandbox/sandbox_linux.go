package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var getenv = os.Getenv

// noNamespaces makes probe skip the namespaces (tests of the fallbacks).
var noNamespaces = false

// Sandbox runs programs in folders of their own. Safe for concurrent use.
type Sandbox struct {
	cfg     Config
	lim     Limits
	prlimit string
	tmp     string
	path    string // the programs' PATH
	iso     Isolation
	root    bool
	flags   uintptr // clone flags
	mu      sync.Mutex
	uids    map[uint32]bool   // per-folder uids in use (root)
	caches  map[string]string // Language.Cache → the kept copy
	closed  bool
}

// New probes what this machine allows and returns a Sandbox. It fails
// (ErrUnavailable) only where no sandbox can run at all; a missing
// namespace is reported by Isolation instead.
func New(cfg Config) (*Sandbox, error) {
	s := &Sandbox{cfg: cfg, root: os.Geteuid() == 0, uids: map[uint32]bool{}, caches: map[string]string{}}
	if err := cfg.Limits.check(); err != nil {
		return nil, err
	}
	s.lim = cfg.Limits.or(DefaultLimits)
	if s.cfg.UIDCount == 0 {
		s.cfg.UIDFirst, s.cfg.UIDCount = 0x5EED0000, 1<<16
	}
	if uint64(s.cfg.UIDFirst)+uint64(s.cfg.UIDCount) > 1<<32-1 || s.cfg.UIDFirst == 0 {
		return nil, fmt.Errorf("sandbox: user id range %d+%d is not inside 1..4294967294", s.cfg.UIDFirst, s.cfg.UIDCount)
	}
	if len(s.cfg.ToolDirs) == 0 {
		s.cfg.ToolDirs = DefaultToolDirs()
	}
	s.tmp = cfg.TempDir
	if s.tmp == "" {
		s.tmp = os.TempDir()
	}
	var err error
	if s.tmp, err = filepath.Abs(s.tmp); err != nil {
		return nil, fmt.Errorf("%w: temporary folder: %v", ErrUnavailable, err)
	}
	if fi, err := os.Stat(s.tmp); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: temporary folder %s is not a folder", ErrUnavailable, s.tmp)
	}
	if s.root && !reachable(s.tmp) {
		return nil, fmt.Errorf("%w: temporary folder %s is not reachable by other users (a parent folder lacks o+x); set TMPDIR to a folder such as /tmp", ErrUnavailable, s.tmp)
	}
	s.prlimit, err = s.lookIn([]string{"/usr/bin", "/bin", "/usr/local/bin"}, "prlimit")
	if err != nil {
		return nil, fmt.Errorf("%w: prlimit not found: install util-linux (Debian: apt-get install util-linux)", ErrUnavailable)
	}
	var dirs []string
	for _, d := range s.cfg.ToolDirs {
		if s.usable(d) {
			dirs = append(dirs, d)
		}
	}
	s.path = strings.Join(dirs, ":")
	s.probe()
	return s, nil
}

// Close removes the compile caches the Sandbox kept (see
// Language.Cache). Folders still open stay usable.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for k, d := range s.caches {
		if err := removeAll(d); err != nil {
			errs = append(errs, err)
		}
		delete(s.caches, k)
	}
	s.closed = true
	return errors.Join(errs...)
}

// seedCache fills rel in f with the kept copy of a compile cache, if
// there is one: hard links to files only root may change (as root), else
// copies.
func (s *Sandbox) seedCache(f *Folder, rel string) {
	s.mu.Lock()
	store := s.caches[rel]
	s.mu.Unlock()
	if store == "" {
		return
	}
	dst := filepath.Join(f.dir, rel)
	filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		r, _ := filepath.Rel(store, p)
		q := filepath.Join(dst, r)
		switch {
		case d.IsDir():
			if err := os.MkdirAll(q, 0o755); err != nil {
				return filepath.SkipAll
			}
		case d.Type().IsRegular():
			if !s.root || os.Link(p, q) != nil {
				copyFile(p, q)
			}
		}
		return nil
	})
	if s.root {
		for d := dst; d != f.dir; d = filepath.Dir(d) {
			os.Lchown(d, int(f.uid), int(f.uid))
		}
		filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Lchown(p, int(f.uid), int(f.uid))
			}
			return nil
		})
	}
}

// keepCache copies rel from f as the Sandbox's compile cache, unless one
// is kept already. It is called right after a compile step, before any of
// the program's own code has run, so the copy holds the compiler's work
// only.
func (s *Sandbox) keepCache(f *Folder, rel string) {
	s.mu.Lock()
	have := s.caches[rel] != "" || s.closed
	s.mu.Unlock()
	src := filepath.Join(f.dir, rel)
	if fi, err := os.Lstat(src); have || err != nil || !fi.IsDir() {
		return
	}
	store, err := os.MkdirTemp(s.tmp, "mlperf-sandbox-cache-")
	if err != nil {
		return
	}
	ok := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		q := filepath.Join(store, r)
		switch {
		case d.IsDir():
			return os.MkdirAll(q, 0o755)
		case d.Type().IsRegular():
			return copyFile(p, q)
		}
		return nil
	}) == nil
	os.Chmod(store, 0o755)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || s.caches[rel] != "" || s.closed {
		removeAll(store)
		return
	}
	s.caches[rel] = store
}

// copyFile copies the regular file src to dst (mode 0644).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Isolation reports what this Sandbox sets up for each program.
func (s *Sandbox) Isolation() Isolation { return s.iso }

// probe tries the namespaces from the strongest set down and keeps the
// first the kernel accepts.
func (s *Sandbox) probe() {
	const ns = syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	try := func(flags uintptr, userns bool) error {
		if noNamespaces {
			return errors.New("namespaces disabled")
		}
		cmd := exec.Command(s.prlimit, "--version")
		cmd.Dir = s.tmp
		cmd.Env = []string{"PATH=" + s.path}
		cmd.SysProcAttr = s.attr(flags, userns, s.cfg.UIDFirst)
		return cmd.Run()
	}
	if s.root {
		s.iso.OwnUser = true
		if err := try(ns, false); err == nil {
			s.flags = ns
		} else {
			s.iso.Notes = append(s.iso.Notes, "no network or PID namespace ("+err.Error()+"): programs can reach the network, and their leftover processes are found by user id")
		}
	} else {
		if err := try(ns|syscall.CLONE_NEWUSER, true); err == nil {
			s.flags = ns | syscall.CLONE_NEWUSER
			s.iso.UserNamespace = true
			s.iso.Notes = append(s.iso.Notes, "not root: programs run as you and can write wherever you can")
		} else {
			s.iso.Notes = append(s.iso.Notes, "not root and no user namespace ("+err.Error()+"): programs run as you with no network isolation, and only their process group is killed")
		}
	}
	s.iso.Network = s.flags&syscall.CLONE_NEWNET != 0
	s.iso.PIDNamespace = s.flags&syscall.CLONE_NEWPID != 0
}

// attr is the child's SysProcAttr: its own session, killed if we die, the
// namespaces of flags, and (as root) the folder's user id.
func (s *Sandbox) attr(flags uintptr, userns bool, uid uint32) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: flags}
	switch {
	case userns:
		u, g := os.Getuid(), os.Getgid()
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: u, HostID: u, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: g, HostID: g, Size: 1}}
	case s.root:
		a.Credential = &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}
	}
	return a
}

// Folder is one program's temporary folder. Its Steps run one at a time.
type Folder struct {
	s      *Sandbox
	dir    string
	uid    uint32
	run    sync.Mutex // held by a running Exec
	mu     sync.Mutex // guards done and cancel
	done   bool
	cancel context.CancelFunc // of the running Exec
}

// NewFolder makes a folder holding files (relative names, created with
// their parent folders, mode 0644), owned by the folder's user.
func (s *Sandbox) NewFolder(files map[string][]byte) (*Folder, error) {
	for name := range files {
		if err := checkName(name); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp(s.tmp, "mlperf-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	f := &Folder{s: s, dir: dir}
	if s.root {
		if f.uid, err = s.takeUID(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	fail := func(err error) (*Folder, error) {
		f.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fail(err)
		}
	}
	if s.root {
		err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, int(f.uid), int(f.uid))
		})
		if err != nil {
			return fail(err)
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fail(err)
	}
	return f, nil
}

// Path is the folder's path.
func (f *Folder) Path() string { return f.dir }

// takeUID draws a user id no other folder of s uses and no process runs as.
func (s *Sandbox) takeUID() (uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range 64 {
		var b [4]byte
		rand.Read(b[:])
		uid := s.cfg.UIDFirst + binary.LittleEndian.Uint32(b[:])%s.cfg.UIDCount
		if s.uids[uid] || len(procsOf(uid)) > 0 {
			continue
		}
		s.uids[uid] = true
		return uid, nil
	}
	return 0, fmt.Errorf("sandbox: no free user id in %d+%d", s.cfg.UIDFirst, s.cfg.UIDCount)
}

// Close kills the running Step (its verdict: Canceled) and whatever the
// folder's programs left running, removes the folder and, as root, the
// files its user left in the world-writable folders (/tmp, /var/tmp,
// /dev/shm). Calling it again does nothing.
func (f *Folder) Close() error {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return nil
	}
	f.done = true
	if f.cancel != nil {
		f.cancel()
	}
	f.mu.Unlock()
	f.run.Lock()
	defer f.run.Unlock()
	if f.s.root {
		killUID(f.uid)
	}
	err := removeAll(f.dir)
	if f.s.root {
		for _, d := range dedupe([]string{f.s.tmp, "/tmp", "/var/tmp", "/dev/shm"}) {
			sweep(d, f.uid, 0)
		}
		f.s.mu.Lock()
		delete(f.s.uids, f.uid)
		f.s.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("sandbox: removing %s: %w", f.dir, err)
	}
	return nil
}

// removeAll removes dir, first making every folder in it writable (a
// program may have taken its own write permission away).
func removeAll(dir string) error {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Run runs one Step in a new folder holding files and removes the folder.
func (s *Sandbox) Run(ctx context.Context, files map[string][]byte, st Step) (Result, error) {
	f, err := s.NewFolder(files)
	if err != nil {
		return Result{}, err
	}
	r, err := f.Exec(ctx, st)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return r, err
}

// Exec runs st in the folder and returns when its whole process tree is
// gone. The error is for what kept the program from starting (a missing
// tool, a closed folder); how the program ended is the Result.
func (f *Folder) Exec(ctx context.Context, st Step) (Result, error) {
	f.run.Lock()
	defer f.run.Unlock()
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return Result{}, errors.New("sandbox: folder already closed")
	}
	ctx, cancel := context.WithCancel(ctx)
	f.cancel = cancel
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.cancel = nil
		f.mu.Unlock()
		cancel()
	}()
	if len(st.Argv) == 0 {
		return Result{}, errors.New("sandbox: empty command")
	}
	if err := st.Limits.check(); err != nil {
		return Result{}, err
	}
	lim := st.Limits.or(f.s.lim)
	prog, err := f.resolve(st.Argv[0])
	if err != nil {
		return Result{}, err
	}
	nproc := lim.Procs
	if !f.s.root && !f.s.iso.UserNamespace {
		// RLIMIT_NPROC counts every process and thread of the user: give
		// the program Procs more than the user has now.
		nproc += tasksOf(uint32(os.Getuid()))
	}
	secs := int64((lim.CPU + time.Second - 1) / time.Second)
	args := []string{
		"--cpu=" + strconv.FormatInt(secs, 10) + ":" + strconv.FormatInt(secs+1, 10),
		"--as=" + strconv.FormatInt(lim.Memory, 10),
		"--nproc=" + strconv.Itoa(nproc),
		"--fsize=" + strconv.FormatInt(lim.FileSize, 10),
		"--nofile=" + strconv.Itoa(lim.OpenFiles),
		"--core=0",
		"--", prog,
	}
	args = append(args, st.Argv[1:]...)
	cmd := exec.Command(f.s.prlimit, args...)
	cmd.Dir = f.dir
	cmd.Env = append([]string{"PATH=" + f.s.path, "HOME=" + f.dir, "TMPDIR=" + f.dir, "LANG=C.UTF-8"}, f.s.cfg.Env...)
	cmd.Env = append(cmd.Env, st.Env...)
	cmd.SysProcAttr = f.s.attr(f.s.flags, f.s.iso.UserNamespace, f.uid)

	stdin, err := stdinFile(f.s.tmp, st.Stdin)
	if err != nil {
		return Result{}, err
	}
	defer stdin.Close()
	cmd.Stdin = stdin
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return Result{}, fmt.Errorf("sandbox: starting %s: %w", st.Argv[0], err)
	}
	pid := cmd.Process.Pid
	kill := func() {
		if f.s.iso.PIDNamespace {
			syscall.Kill(pid, syscall.SIGKILL) // process 1 of its namespace: all die
		}
		syscall.Kill(-pid, syscall.SIGKILL)
		if f.s.root {
			killUID(f.uid)
		}
	}
	over := make(chan struct{})
	var overOnce sync.Once
	var outBuf, errBuf limitedBuffer
	outBuf.max, errBuf.max = lim.Output, lim.Output
	outBuf.over, errBuf.over = func() { overOnce.Do(func() { close(over) }) }, func() { overOnce.Do(func() { close(over) }) }
	var readers sync.WaitGroup
	readers.Go(func() { io.Copy(&outBuf, outR) })
	readers.Go(func() { io.Copy(&errBuf, errR) })

	// Wait for the exit without reaping, so that the program's pid (and
	// so its process group id) cannot be reused before the group is killed.
	exited := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == syscall.EINTR {
		}
		close(exited)
	}()
	wall := time.NewTimer(lim.Wall)
	defer wall.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var why Verdict = OK
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-wall.C:
			why = WallTimeout
		case <-ctx.Done():
			why = Canceled
		case <-over:
			why = OutputLimit
			over = nil
		case <-tick.C:
			if diskUse(f.dir, lim.Disk) > lim.Disk {
				why = DiskLimit
			}
		}
		if why != OK {
			kill()
			<-exited
			break
		}
	}
	elapsed := time.Since(start)
	kill() // what the program left behind, if its namespace did not take it
	ps, _ := cmd.Process.Wait()
	// Every writer of the pipes is dead now, except in a process-group-only
	// sandbox, where an escaped process may hold them: wait a little, then
	// close them under it.
	done := make(chan struct{})
	go func() { readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		outR.Close()
		errR.Close()
		<-done
	}
	outR.Close()
	errR.Close()

	r := Result{Stdout: outBuf.b.Bytes(), Stderr: errBuf.b.Bytes(), Wall: elapsed, ExitCode: -1}
	if ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
		ws, _ := ps.Sys().(syscall.WaitStatus)
		switch {
		case ws.Exited():
			r.ExitCode = ws.ExitStatus()
		case ws.Signaled():
			r.Signal = ws.Signal().String()
		}
		if why == OK {
			switch {
			case ws.Exited() && ws.ExitStatus() == 0:
				why = OK
			case ws.Exited():
				why = Exited
			case ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL && r.CPU >= time.Duration(secs)*time.Second):
				why = CPULimit
			default:
				why = Signaled
			}
		}
	}
	if outBuf.exceeded || errBuf.exceeded {
		why = OutputLimit
	}
	r.Verdict = why
	return r, nil
}

// resolve turns a command name into the path to run: "./x" inside the
// folder, else a tool found in the tool folders.
func (f *Folder) resolve(name string) (string, error) {
	if rel, ok := strings.CutPrefix(name, "./"); ok {
		if err := checkName(rel); err != nil {
			return "", err
		}
		return filepath.Join(f.dir, rel), nil
	}
	if strings.ContainsRune(name, '/') {
		return "", fmt.Errorf("%w: command %q: give a tool name or ./name inside the folder", ErrBadFile, name)
	}
	return f.s.Look(name)
}

// Look finds a command in the tool folders that the programs can run (as
// root: one every user may execute, in folders every user may enter).
func (s *Sandbox) Look(name string) (string, error) {
	return s.lookIn(s.cfg.ToolDirs, name)
}

func (s *Sandbox) lookIn(dirs []string, name string) (string, error) {
	var unusable []string
	for _, d := range dirs {
		p := filepath.Join(d, name)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if !s.usable(p) {
			unusable = append(unusable, p)
			continue
		}
		return p, nil
	}
	if len(unusable) > 0 {
		return "", fmt.Errorf("%w: %s is installed at %s, but the sandbox's user may not run it (a folder above it is not open to other users); install it system-wide", ErrToolchainMissing, name, strings.Join(unusable, ", "))
	}
	return "", fmt.Errorf("%w: %s not found in %s", ErrToolchainMissing, name, strings.Join(dirs, ":"))
}

// usable: the sandbox's user may use path (as root, the per-folder user,
// who needs o+x on every folder above it and on the file, following
// symbolic links; otherwise ourselves).
func (s *Sandbox) usable(path string) bool {
	if !s.root {
		return syscall.Access(path, 1 /* X_OK */) == nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	fi, err := os.Stat(real)
	if err != nil || fi.Mode()&0o001 == 0 {
		return false
	}
	return reachable(filepath.Dir(real))
}

// reachable: every folder from / down to dir is open (o+x) to other users.
func reachable(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}

// stdinFile holds b in an unlinked temporary file, read from the start.
func stdinFile(dir string, b []byte) (*os.File, error) {
	f, err := os.CreateTemp(dir, "mlperf-sandbox-stdin-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: writing standard input: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return f, nil
}

// limitedBuffer keeps the first max bytes written and discards the rest,
// calling over once when more arrive.
type limitedBuffer struct {
	b        bytes.Buffer
	max      int64
	exceeded bool
	over     func()
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - int64(l.b.Len()); int64(len(p)) > room {
		l.b.Write(p[:max(room, 0)])
		if !l.exceeded {
			l.exceeded = true
			l.over()
		}
		return len(p), nil
	}
	return l.b.Write(p)
}

// diskUse sums the blocks of the files under dir, stopping once past limit
// or after 100000 entries (which counts as past it).
func diskUse(dir string, limit int64) int64 {
	var total int64
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > 100000 {
			total = limit + 1
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			}
		}
		if total > limit {
			return filepath.SkipAll
		}
		return nil
	})
	return total
}

// procsOf lists the live (not zombie) processes whose real or effective
// user id is uid.
func procsOf(uid uint32) []int {
	var pids []int
	eachProc(uid, func(pid, _ int, zombie bool) {
		if !zombie {
			pids = append(pids, pid)
		}
	})
	return pids
}

// tasksOf counts the threads of the processes of uid as RLIMIT_NPROC does
// (a zombie counts until it is reaped).
func tasksOf(uid uint32) int {
	n := 0
	eachProc(uid, func(_, threads int, _ bool) { n += max(threads, 1) })
	return n
}

// eachProc calls fn with the pid, thread count and zombie state of each
// process whose real or effective user id is uid.
func eachProc(uid uint32, fn func(pid, threads int, zombie bool)) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	want := strconv.FormatUint(uint64(uid), 10)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		mine, zombie, threads := false, false, 0
		for line := range strings.SplitSeq(string(b), "\n") {
			key, val, _ := strings.Cut(line, ":")
			val = strings.TrimSpace(val)
			switch key {
			case "State":
				zombie = strings.HasPrefix(val, "Z") || strings.HasPrefix(val, "X")
			case "Uid":
				f := strings.Fields(val)
				mine = len(f) >= 2 && (f[0] == want || f[1] == want)
			case "Threads":
				threads, _ = strconv.Atoi(val)
			}
		}
		if mine {
			fn(pid, threads, zombie)
		}
	}
}

// killUID kills every process of uid until none is left (a forking
// process can add some between two passes; its RLIMIT_NPROC bounds them).
func killUID(uid uint32) {
	for range 100 {
		pids := procsOf(uid)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// sweep removes what uid owns in dir and, down to a few levels, in the
// world-writable folders under it that others own.
func sweep(dir string, uid uint32, depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		if st.Uid == uid {
			removeAll(p)
			continue
		}
		if fi.IsDir() && fi.Mode().Perm()&0o002 != 0 && depth < 3 {
			sweep(p, uid, depth+1)
		}
	}
}
