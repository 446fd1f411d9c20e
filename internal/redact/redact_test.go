package redact

import "testing"

func TestURLMasksThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:s3cret@host:8000/v1": "http://user:xxxxx@host:8000/v1",
		"user:s3cret@host:8000":           "user:xxxxx@host:8000",
		"https://tok@host":                "https://tok@host", // a user name alone is no secret
		"http://host:8000":                "http://host:8000",
		"127.0.0.1:8000":                  "127.0.0.1:8000",
		"http://us er:s3cret@ho st:80":    "http://xxxxx@ho st:80",
		"http://a:b@c@host:1":             "http://a:xxxxx@host:1",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSecretMasksEveryOccurrence(t *testing.T) {
	if got := Secret("401: key sk-abc123 is invalid (sk-abc123)", "sk-abc123"); got != "401: key xxxxx is invalid (xxxxx)" {
		t.Errorf("got %q", got)
	}
	if got := Secret("a b c", "b"); got != "a b c" {
		t.Errorf("a 1-byte secret garbled the text: %q", got)
	}
}
