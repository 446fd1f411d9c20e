package kserve

import (
	"strings"
	"testing"
)

// A malformed --endpoint is refused before anything is dialled, quoting
// the value as given and saying what to write; good ones pass.
func TestCheckEndpoint(t *testing.T) {
	for _, c := range []struct {
		endpoint, protocol, want string // want "": accepted
	}{
		{"127.0.0.1:8000", "grpc", ""},
		{"grpc://127.0.0.1:8000", "grpc", ""},
		{"http://127.0.0.1:8000/", "grpc", ""},
		{"127.0.0.1:8000", "", ""},
		{"https://node:8443/prefix", "http", ""},
		{"", "grpc", "no endpoint given"},
		{"127.0.0.1:8000/v2", "grpc", `endpoint "127.0.0.1:8000/v2": gRPC takes host:port with no path; give 127.0.0.1:8000`},
		{"https://127.0.0.1:8000", "grpc", "plaintext HTTP/2, without TLS"},
		{"grpcs://127.0.0.1:8000", "grpc", "plaintext HTTP/2, without TLS"},
		{"ftp://127.0.0.1:8000", "grpc", `unknown scheme "ftp"`},
		{"127.0.0.1", "grpc", `endpoint "127.0.0.1" has no port`},
		{"127.0.0.1:1,127.0.0.1:2", "grpc", "one host:port per --endpoint"},
		{"127.0.0.1:1,127.0.0.1:2", "http", "one host:port per --endpoint"},
		{"ftp://x:1", "http", `endpoint "ftp://x:1" is not host:port or an http(s) URL`},
	} {
		err := CheckEndpoint(c.endpoint, c.protocol)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q over %q: %v", c.endpoint, c.protocol, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q over %q: %v, want %q", c.endpoint, c.protocol, err, c.want)
		}
	}
}

// Asking a node for a model it does not serve names the ones it does.
func TestLookupNamesTheServedModels(t *testing.T) {
	s := NewServer("node", "v")
	if _, err := s.lookup("resnet50", ""); err == nil || !strings.Contains(err.Error(), "this node serves no tensor model") {
		t.Fatalf("empty server: %v", err)
	}
	s.Add("retinanet", double{}, 1)
	s.Add("bert", double{}, 1)
	if _, err := s.lookup("resnet50", ""); err == nil || !strings.Contains(err.Error(), `model "resnet50" is not served here (this node serves bert, retinanet)`) {
		t.Fatalf("other models: %v", err)
	}
}
