package rng

import "testing"

// TestDefaultSeed10000th checks the C++11 requirement: the 10000th output of
// a default-constructed (seed 5489) std::mt19937 is 4123659995.
func TestDefaultSeed10000th(t *testing.T) {
	g := New(5489)
	var v uint32
	for range 10000 {
		v = g.Uint32()
	}
	if v != 4123659995 {
		t.Fatalf("10000th output = %d, want 4123659995", v)
	}
	if New(5489+1<<32).Uint32() != New(5489).Uint32() {
		t.Fatal("seed not reduced mod 2^32")
	}
}
