package openai

import (
	"strings"
	"testing"
)

// A malformed --endpoint is refused before anything is dialled; a base
// URL, with or without /v1 or a proxy prefix, passes.
func TestCheckEndpoint(t *testing.T) {
	for _, c := range []struct{ endpoint, want string }{
		{"127.0.0.1:8000", ""},
		{"http://node:8000/v1", ""},
		{"https://proxy/llm/", ""},
		{"a:1,b:2", "one server's URL"},
		{"ftp://x:1", "is not host:port or an http(s) URL"},
		{"http://127.0.0.1:8000/v1/completions", "give the server's base URL http://127.0.0.1:8000"},
		{"https://proxy/llm/v1/chat/completions/", "give the server's base URL https://proxy/llm"},
	} {
		err := CheckEndpoint(c.endpoint)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.endpoint, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.endpoint, err, c.want)
		}
	}
}
