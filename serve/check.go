package serve

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/mlperf-go/inference/backend"
)

// CheckConfig refuses a Config made from a person's flags that would
// otherwise be changed silently or fail late: a --listen that is not
// host:port, fewer than one slot or more than backend.MaxThreads, an
// empty node name, a negative drain. (Serve itself treats
// Slots < 1 as 1 and Drain ≤ 0 as 10 s, for callers that leave them
// zero.)
func CheckConfig(cfg Config) error {
	if err := CheckListen(cfg.Listen); err != nil {
		return err
	}
	if cfg.Slots < 1 {
		return fmt.Errorf("serve: --slots %d: want at least 1 (how many inferences run at once)", cfg.Slots)
	}
	if m := backend.MaxThreads(); cfg.Slots > m {
		return fmt.Errorf("serve: --slots %d: more inferences at once than this machine can run (%d CPUs); use at most %d", cfg.Slots, runtime.NumCPU(), m)
	}
	if strings.TrimSpace(cfg.Name) == "" {
		return fmt.Errorf("serve: --name is empty; it names this node in the server metadata (default mlperf-serve)")
	}
	if cfg.MaxBatch < 0 {
		return fmt.Errorf("serve: --max-batch %d: want at least 1 sample per request (0: as many as fit 64 MiB of the model's inputs)", cfg.MaxBatch)
	}
	if cfg.MaxConns < 0 || cfg.MaxConns > maxConnsCap {
		return fmt.Errorf("serve: --max-conns %d: want 1 to %d connections (0: %d)", cfg.MaxConns, maxConnsCap, DefaultMaxConns)
	}
	if cfg.Drain < 0 {
		return fmt.Errorf("serve: --drain %v: a duration cannot be negative (how long a shutdown waits for requests in flight)", cfg.Drain)
	}
	return nil
}

// maxConnsCap is the most --max-conns may ask for: at some 20 kB each,
// 65536 idle connections take over a GiB.
const maxConnsCap = 1 << 16

// CheckListen refuses a --listen value that is not host:port, with the
// form it wants: no scheme or path, a port from 0 (any free port) to
// 65535 or a service name.
func CheckListen(addr string) error {
	const want = "want host:port, e.g. 127.0.0.1:8000 (this machine only), :8000 (every interface) or 127.0.0.1:0 (a free port)"
	if addr == "" {
		return fmt.Errorf("serve: --listen is empty; %s", want)
	}
	if i := strings.Index(addr, "://"); i >= 0 {
		return fmt.Errorf("serve: --listen %s: give host:port without the %s:// scheme (the one port serves KServe REST and gRPC); %s", addr, addr[:i], want)
	}
	if strings.Contains(addr, "/") {
		return fmt.Errorf("serve: --listen %s: a listen address has no path; %s", addr, want)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if _, nerr := strconv.Atoi(addr); nerr == nil {
			return fmt.Errorf("serve: --listen %s: a bare number; for that port write :%s or 127.0.0.1:%s", addr, addr, addr)
		}
		return fmt.Errorf("serve: --listen %s: not host:port (%v); %s", addr, err, want)
	}
	if n, err := strconv.Atoi(port); err == nil {
		if n < 0 || n > 65535 {
			return fmt.Errorf("serve: --listen %s: port %d is outside 0 to 65535 (0 picks a free port)", addr, n)
		}
	} else if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("serve: --listen %s: port %q is neither a number from 0 to 65535 nor a known service name", addr, port)
	}
	if strings.ContainsAny(host, " \t") {
		return fmt.Errorf("serve: --listen %s: the host has a space; %s", addr, want)
	}
	return nil
}

// listenError explains why listening on addr failed, naming the fix.
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("serve: --listen %s: the port is in use by another process (another mlperf serve?); stop it, pick another port, or use port 0 for a free one: %w", addr, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("serve: --listen %s: permission denied (ports below 1024 need privileges); pick a port above 1024: %w", addr, err)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("serve: --listen %s: no network interface of this machine has that address; use 127.0.0.1, 0.0.0.0 or one of this machine's addresses: %w", addr, err)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("serve: --listen %s: the host name does not resolve; use an IP address or localhost: %w", addr, err)
	}
	return fmt.Errorf("serve: listen on %s: %w", addr, err)
}
