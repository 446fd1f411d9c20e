//go:build race

package main

// raceEnabled: this test binary runs with the race detector, whose shadow
// memory multiplies a process's resident memory.
const raceEnabled = true
