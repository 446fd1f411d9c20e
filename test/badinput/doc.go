// Package badinput holds, in its test, the table of bad inputs and faults
// the libraries below the command line must refuse cleanly: every case
// must end in a clear error (or an INVALID, interrupted result), never a
// panic, a hang or a silent acceptance.
package badinput
