//go:build !race

package main

// raceEnabled: this test binary runs without the race detector.
const raceEnabled = false
