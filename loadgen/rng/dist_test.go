package rng

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"testing"
)

func lines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("../testdata/golden/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func TestGolden(t *testing.T) {
	g := New(2747215439041700203)
	for i, l := range lines(t, "uniform_int_0_1023_fresh_sampleseed_first64.txt") {
		if got := strconv.FormatUint(g.UniformInt(0, 1023), 10); got != l {
			t.Fatalf("uniform_int #%d = %s, want %s", i, got, l)
		}
	}
	g = New(5489)
	for i, l := range lines(t, "uniform_real_default5489_first64.txt") {
		want, _ := strconv.ParseFloat(l, 64)
		if got := g.Canonical(); got != want {
			t.Fatalf("canonical #%d = %v, want %v", i, got, want)
		}
	}
	g = New(16159082839903944936)
	for i, l := range lines(t, "exponential_qps100_scheduleseed_first64.txt") {
		want, _ := strconv.ParseFloat(l, 64)
		if got := g.Exponential(100); got != want {
			t.Fatalf("exponential #%d = %v, want %v", i, got, want)
		}
	}
	for _, l := range lines(t, "shuffle_vectors_qslseed.txt") {
		head, body, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		// "N=5000" lines hold the whole shuffle, "N=100000 first64" its head.
		head, _, _ = strings.Cut(head, " ")
		nn, err := strconv.Atoi(strings.TrimPrefix(head, "N="))
		if err != nil {
			t.Fatalf("bad golden line %q", head)
		}
		s := make([]int, nn)
		for i := range s {
			s[i] = i
		}
		Shuffle(s, New(2085463073848966840))
		want := strings.Fields(body)
		for i := range min(len(want), nn) {
			if strconv.Itoa(s[i]) != want[i] {
				t.Fatalf("shuffle N=%d pos %d = %d, want %s", nn, i, s[i], want[i])
			}
		}
	}
}

// TestShuffleLargeN compares Shuffle with libstdc++'s std::shuffle over
// mt19937 in full for N around and above 65536, where libstdc++ switches
// from two swaps per draw to one: shuffle_large_qslseed.txt holds, per N,
// the FNV-1a 64 of the whole permutation (4 little-endian bytes per
// element) and its first and last 16 elements (make_shuffle_large.cc).
func TestShuffleLargeN(t *testing.T) {
	ls := lines(t, "shuffle_large_qslseed.txt")
	if len(ls) < 6 {
		t.Fatalf("%d golden lines", len(ls))
	}
	for _, l := range ls {
		f := strings.Fields(l)
		n, err := strconv.Atoi(f[0])
		if err != nil || len(f) != 2+32 {
			t.Fatalf("bad golden line %q", l)
		}
		s := make([]uint32, n)
		for i := range s {
			s[i] = uint32(i)
		}
		Shuffle(s, New(2085463073848966840))
		h := fnv.New64a()
		var b [4]byte
		for _, v := range s {
			binary.LittleEndian.PutUint32(b[:], v)
			h.Write(b[:])
		}
		if got := fmt.Sprintf("%016x", h.Sum64()); got != f[1] {
			t.Errorf("N=%d: FNV-1a 64 %s, want %s", n, got, f[1])
		}
		for i, w := range f[2:] {
			pos := i
			if i >= 16 {
				pos = n - 32 + i
			}
			if strconv.FormatUint(uint64(s[pos]), 10) != w {
				t.Errorf("N=%d pos %d = %d, want %s", n, pos, s[pos], w)
				break
			}
		}
	}
}
