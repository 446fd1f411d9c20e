package earlystop

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		rows = append(rows, strings.Split(line, ","))
	}
	return rows
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMinPassingMatchesLoadGenTables(t *testing.T) {
	for _, c := range []struct {
		file string
		p    float64
	}{
		{"early_stopping_server_p90_t0-500.csv", 0.90},
		{"early_stopping_server_p97_t0-500.csv", 0.97},
		{"early_stopping_server_p99_t0-2000.csv", 0.99},
	} {
		rows := readCSV(t, c.file)
		if len(rows) < 500 {
			t.Fatalf("%s: %d rows", c.file, len(rows))
		}
		for _, r := range rows {
			tt, h, need := atoi(t, r[0]), atoi(t, r[1]), atoi(t, r[2])
			if got := MinPassing(tt, c.p); got != h {
				t.Fatalf("%s: MinPassing(%d) = %d, want %d", c.file, tt, got, h)
			}
			if met, _ := Server(need, tt, c.p); !met {
				t.Fatalf("%s: Server(%d, %d) not met", c.file, need, tt)
			}
			if met, more := Server(need-1, tt, c.p); met || more != 1 {
				t.Fatalf("%s: Server(%d, %d) = %v, %d; want not met, 1 more", c.file, need-1, tt, met, more)
			}
		}
	}
}

func TestSequenceMatchesLoadGenTables(t *testing.T) {
	for _, c := range []struct {
		file string
		p    float64
	}{
		{"early_stopping_seq_p90.csv", 0.90},
		{"early_stopping_seq_p99.csv", 0.99},
		{"early_stopping_seq_p999.csv", 0.999},
	} {
		for _, r := range readCSV(t, c.file) {
			n, minq := atoi(t, r[0]), atoi(t, r[1])
			est, ok := Sequence(n, c.p)
			if est.MinQueries != minq {
				t.Fatalf("%s n=%d: MinQueries %d, want %d", c.file, n, est.MinQueries, minq)
			}
			if r[2] == "NA" {
				if ok {
					t.Fatalf("%s n=%d: got an estimate, want none", c.file, n)
				}
				continue
			}
			if !ok || est.T != atoi(t, r[2]) || est.Discarded != atoi(t, r[3]) || est.Index != n-est.T {
				t.Fatalf("%s n=%d: got %+v ok=%v, want t=%s discarded=%s", c.file, n, est, ok, r[2], r[3])
			}
		}
	}
}

// Values the spec records as verified against the C++ LoadGen.
func TestVerifiedLoadGenValues(t *testing.T) {
	for _, c := range []struct {
		n    int64
		p    float64
		disc int64
	}{{9775, 0.90, 907}, {9705, 0.90, 900}, {1235, 0.99, 3}, {2448, 0.99, 12}} {
		est, ok := Sequence(c.n, c.p)
		if !ok || est.Discarded != c.disc {
			t.Errorf("Sequence(%d, %v) discarded %d ok=%v, want %d", c.n, c.p, est.Discarded, ok, c.disc)
		}
	}
	if met, need := Server(0, 1558, 0.99); met || need != 165185 {
		t.Errorf("Server t=1558: met=%v need=%d, want 165185", met, need)
	}
}

func TestVerifiedLargeSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	est, ok := Sequence(7327699, 0.90)
	if !ok || est.Discarded != 730879 {
		t.Errorf("discarded %d ok=%v, want 730879", est.Discarded, ok)
	}
}
