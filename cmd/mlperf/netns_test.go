package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
)

// netnsLab is machines simulated on one: a LoadGen node and SUT nodes,
// each in its own network namespace, the LoadGen node joined to each SUT
// node by a veth pair on a /24 of its own (10.217.N.0/24, N = 1, 2, ...).
// The addresses exist only inside the namespaces the test makes and
// deletes.
type netnsLab struct {
	t      *testing.T
	prefix string
	lg     string   // the LoadGen node's namespace
	suts   []string // the SUT nodes' namespaces
}

// ipCmd runs ip (or tc) with args and returns its combined output.
func ipCmd(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// newNetnsLab makes the namespaces and links, or skips t with the reason
// they cannot be made here (not root, no ip command, no namespaces).
func newNetnsLab(t *testing.T, suts int) *netnsLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root; skipping the multi-node test")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2); skipping the multi-node test")
	}
	l := &netnsLab{t: t, prefix: fmt.Sprintf("mlp%d", os.Getpid()%100000)}
	l.lg = l.prefix + "lg"
	if out, err := ipCmd("ip", "netns", "add", l.lg); err != nil {
		t.Skipf("cannot make a network namespace here (%v: %s); skipping the multi-node test", err, out)
	}
	t.Cleanup(l.close)
	must := func(args ...string) {
		t.Helper()
		if out, err := ipCmd("ip", args...); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	must("-n", l.lg, "link", "set", "lo", "up")
	for i := 1; i <= suts; i++ {
		ns := fmt.Sprintf("%ss%d", l.prefix, i)
		must("netns", "add", ns)
		l.suts = append(l.suts, ns)
		a, b := fmt.Sprintf("%sa%d", l.prefix, i), fmt.Sprintf("%sb%d", l.prefix, i)
		must("link", "add", a, "type", "veth", "peer", "name", b)
		must("link", "set", a, "netns", l.lg)
		must("link", "set", b, "netns", ns)
		must("-n", l.lg, "addr", "add", fmt.Sprintf("10.217.%d.1/24", i), "dev", a)
		must("-n", ns, "addr", "add", fmt.Sprintf("10.217.%d.2/24", i), "dev", b)
		must("-n", l.lg, "link", "set", a, "up")
		must("-n", ns, "link", "set", b, "up")
		must("-n", ns, "link", "set", "lo", "up")
	}
	return l
}

// sutAddr is SUT node i's address (1-based) as the LoadGen node reaches it.
func (l *netnsLab) sutAddr(i int) string { return fmt.Sprintf("10.217.%d.2", i) }

// sutLink is SUT node i's end of its veth pair.
func (l *netnsLab) sutLink(i int) string { return fmt.Sprintf("%sb%d", l.prefix, i) }

func (l *netnsLab) close() {
	for _, ns := range append([]string{l.lg}, l.suts...) {
		ipCmd("ip", "netns", "del", ns) // the veth pairs go with them
	}
}

// startDelayRelayIn starts, in namespace ns, a child process that listens
// on listen and relays every connection to target, holding each chunk of
// the answer direction for delay: a one-way link delay like `tc netem
// delay`, made in user space. It waits until the relay accepts
// connections; the process is killed when t ends.
func startDelayRelayIn(t *testing.T, ns, listen, target string, delay time.Duration) {
	t.Helper()
	argv := append(in(ns), os.Args[0], listen, target, delay.String())
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "MLPERF_TEST_CHILD=delay-relay")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if out, err := ipCmd("ip", "netns", "exec", ns, "ss", "-Htln", "src", listen); err == nil && out != "" {
			return
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the delay relay did not listen on %s within 10 s:\n%s", listen, log.String())
		}
	}
}

// delayRelay is the relay process of startDelayRelayIn: args are the
// listen address, the target address and the delay. It runs until killed.
func delayRelay(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "delay relay: want LISTEN TARGET DELAY")
		return 2
	}
	delay, err := time.ParseDuration(args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "delay relay:", err)
		return 2
	}
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "delay relay:", err)
		return 1
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "delay relay:", err)
			return 1
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", args[1])
			if err != nil {
				return
			}
			defer s.Close()
			go io.Copy(s, c)
			relayDelayed(c, s, delay)
		}()
	}
}

// relayDelayed copies src to dst, each chunk written delay after it was
// read, in order.
func relayDelayed(dst io.Writer, src io.Reader, delay time.Duration) {
	type chunk struct {
		due time.Time
		b   []byte
	}
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			b := make([]byte, 64<<10)
			n, err := src.Read(b)
			if n > 0 {
				q <- chunk{time.Now().Add(delay), b[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.b); err != nil {
			return
		}
	}
}

// in is the command prefix that runs a program in namespace ns.
func in(ns string) []string { return []string{"ip", "netns", "exec", ns} }

// runChildIn runs mlperf args in a child process in namespace ns.
func runChildIn(t *testing.T, ns string, env []string, args ...string) (int, string) {
	t.Helper()
	argv := append(append(in(ns), os.Args[0]), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "MLPERF_TEST_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "panic:") {
		t.Fatalf("child panicked:\n%s", out)
	}
	return code, string(out)
}

// TestNetworkDivisionAcrossNamespaces is the Network division across
// machines simulated on one: `mlperf serve resnet50` on two SUT nodes,
// `mlperf run resnet50 --backend kserve` on the LoadGen node, each in its
// own network namespace. The accuracy is the local run's; a SUT node
// killed mid-run ends the run INVALID with its logs written; a delay on a
// node's link (tc netem) shows in the latency.
func TestNetworkDivisionAcrossNamespaces(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the multi-node test")
	}
	orttest.Need(t)
	lab := newNetnsLab(t, 2)
	dir := t.TempDir()
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	var nodes []*exec.Cmd
	var eps []string
	for i := 1; i <= 2; i++ {
		addr, cmd := startServeChildIn(t, in(lab.suts[i-1]), env, "resnet50", "--listen", lab.sutAddr(i)+":8000",
			"--model", "synthetic:tiny", "--threads", "1", "--slots", "2", "--name", fmt.Sprintf("node-%d", i))
		if addr != lab.sutAddr(i)+":8000" {
			t.Fatalf("node %d serves on %s", i, addr)
		}
		nodes = append(nodes, cmd)
		eps = append(eps, "--endpoint", addr)
	}
	run := func(name, ns string, args ...string) (string, string) {
		t.Helper()
		out := filepath.Join(dir, name)
		argv := append([]string{"run", "resnet50", "--count", "16", "--out", out}, args...)
		var code int
		var log string
		if ns == "" {
			code, log = runProcess(t, env, argv...)
		} else {
			code, log = runChildIn(t, ns, env, argv...)
		}
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, log)
		}
		return out, log
	}
	readFile := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// The same accuracy as the local run on the same synthetic model.
	local, _ := run("local", "", "--model", "synthetic:tiny", "--threads", "1", "--mode", "accuracy")
	remote, _ := run("remote", lab.lg, append([]string{"--backend", "kserve", "--mode", "accuracy"}, eps...)...)
	if a, b := readFile(filepath.Join(local, "accuracy.txt")), readFile(filepath.Join(remote, "accuracy.txt")); a != b {
		t.Errorf("accuracy across namespaces %q, locally %q", b, a)
	}
	// The same over gRPC (the nodes serve it on the same port).
	remoteGRPC, _ := run("remote-grpc", lab.lg, append([]string{"--backend", "kserve", "--protocol", "grpc", "--mode", "accuracy"}, eps...)...)
	if a, b := readFile(filepath.Join(local, "accuracy.txt")), readFile(filepath.Join(remoteGRPC, "accuracy.txt")); a != b {
		t.Errorf("accuracy across namespaces over gRPC %q, locally %q", b, a)
	}
	detail := readFile(filepath.Join(remote, "mlperf_log_detail.txt"))
	if !strings.Contains(detail, `"sut_name", "value": "Network SUT: node-1 `) || !strings.Contains(detail, "; node-2 ") {
		t.Errorf("the sut_name does not aggregate both nodes as a Network SUT")
	}

	// A link delay shows in the latency (SingleStream: one query at a
	// time, alternating between the nodes).
	t.Run("netem", func(t *testing.T) {
		delayed := slices.Clone(eps)
		if out, err := ipCmd("ip", "netns", "exec", lab.suts[1], "tc", "qdisc", "add", "dev", lab.sutLink(2), "root", "netem", "delay", "40ms"); err == nil {
			defer ipCmd("ip", "netns", "exec", lab.suts[1], "tc", "qdisc", "del", "dev", lab.sutLink(2), "root")
		} else {
			// No sch_netem in this kernel: the same 40 ms one-way delay on
			// node 2's answers, made by a relay process in node 2's
			// namespace in front of its server.
			t.Logf("tc netem is not available here (%v: %s); delaying node 2's link with a relay process instead", err, out)
			relay := lab.sutAddr(2) + ":8001"
			startDelayRelayIn(t, lab.suts[1], relay, lab.sutAddr(2)+":8000", 40*time.Millisecond)
			delayed[3] = relay
		}
		out, _ := run("netem", lab.lg, append([]string{"--backend", "kserve", "--scenario", "SingleStream", "--min-queries", "20", "--duration", "1ms"}, delayed...)...)
		sum := readFile(filepath.Join(out, "mlperf_log_summary.txt"))
		// Half the queries cross the delayed link: the median stays low, the
		// 90th percentile is at least the delay.
		if p90 := summaryValue(t, sum, "90.00 percentile latency (ns)"); p90 < 40e6 {
			t.Errorf("p90 latency %v ns with a 40 ms delay on one node's link:\n%s", p90, sum)
		}
	})

	// A node killed mid-run: its samples fail as data, the run ends
	// INVALID with the cause, and every log is written.
	t.Run("node killed", func(t *testing.T) {
		out := filepath.Join(dir, "killed")
		argv := append(append(in(lab.lg), os.Args[0], "run", "resnet50", "--count", "16", "--out", out, "--backend", "kserve",
			"--scenario", "Server", "--qps", "40", "--duration", "4s", "--min-queries", "1"), eps...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(append(os.Environ(), "MLPERF_TEST_CHILD=1"), env...)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill node 2 about halfway through the run.
		go func() {
			time.Sleep(2 * time.Second)
			nodes[1].Process.Kill()
		}()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run with a node killed: %v\n%s", err, log.String())
			}
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("the run hung after a node was killed:\n%s", log.String())
		}
		nodes[1].Wait()
		sum := readFile(filepath.Join(out, "mlperf_log_summary.txt"))
		m := regexp.MustCompile(`the SUT reported an error for (\d+) samples`).FindStringSubmatch(sum)
		if !strings.Contains(sum, "Result is : INVALID") || m == nil {
			t.Fatalf("summary after a node was killed:\n%s\n%s", sum, log.String())
		}
		failed, _ := strconv.Atoi(m[1])
		if !strings.Contains(sum, "(the first: ") || !strings.Contains(sum, lab.sutAddr(2)) {
			t.Errorf("the summary does not give the cause (the failing node %s):\n%s", lab.sutAddr(2), sum)
		}
		det := readFile(filepath.Join(out, "mlperf_log_detail.txt"))
		if !strings.Contains(det, "error_runtime") || !strings.Contains(det, lab.sutAddr(2)) {
			t.Errorf("the detail log does not name the failing node %s", lab.sutAddr(2))
		}
		if !strings.Contains(det, `"key": "result_invalid_reason"`) {
			t.Errorf("the detail log has no result_invalid_reason")
		}
		if failed == 0 || !strings.Contains(log.String(), "INVALID") {
			t.Errorf("%d failed samples; output:\n%s", failed, log.String())
		}
		if _, err := os.Stat(filepath.Join(out, "mlperf_log_accuracy.json")); err != nil {
			t.Error(err)
		}
		t.Logf("node 2 killed 2 s into a 4 s Server run: %d samples failed; the run ended INVALID", failed)
	})
}
