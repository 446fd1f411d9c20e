package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestLookupPicksLongestPath(t *testing.T) {
	saved := commands
	defer func() { commands = saved }()
	commands = nil
	var got string
	handle("model", "m", func(context.Context, []string, io.Writer, io.Writer) error { got = "model"; return nil })
	handle("model build x", "mb", func(context.Context, []string, io.Writer, io.Writer) error { got = "model build x"; return nil })
	c, rest := lookup([]string{"model", "build", "x", "--size", "tiny"})
	if c == nil {
		t.Fatal("no command found")
	}
	_ = c.run(context.Background(), rest, io.Discard, io.Discard)
	if got != "model build x" || strings.Join(rest, " ") != "--size tiny" {
		t.Fatalf("got %q rest %v", got, rest)
	}
}

func TestUnknownCommandExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"no-such-command"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "no-such-command"`) {
		t.Fatalf("stderr %q", errb.String())
	}
}

func TestUsageErrorExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"version", "extra"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", code, errb.String())
	}
}
