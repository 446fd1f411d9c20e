package rng

import (
	"bufio"
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
		nn, err := strconv.Atoi(strings.TrimPrefix(head, "N="))
		if err != nil {
			continue
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
