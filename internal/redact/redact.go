// Package redact keeps credentials out of messages and logs: the password
// of a URL's userinfo and the value of an API key.
package redact

import (
	"net/url"
	"strings"
)

// Mask replaces a secret in text.
const Mask = "xxxxx"

// URL returns s with the password of its userinfo (scheme://user:pass@host)
// replaced by Mask; s is returned as it is when it holds no userinfo.
// host:port without a scheme is read as http. An s that does not parse
// as a URL but holds "@" has everything before the last "@" after the
// scheme masked, so a malformed URL is not printed with its password
// either.
func URL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	full, scheme := s, true
	if !strings.Contains(s, "://") {
		full, scheme = "http://"+s, false
	}
	u, err := url.Parse(full)
	if err != nil || u.User == nil {
		// Mask the authority's userinfo by hand.
		pre, rest, ok := strings.Cut(s, "://")
		if !ok {
			pre, rest = "", s
		} else {
			pre += "://"
		}
		at := strings.LastIndex(rest, "@")
		if at < 0 {
			return s
		}
		return pre + Mask + rest[at:]
	}
	r := u.Redacted()
	if !scheme {
		r = strings.TrimPrefix(r, "http://")
	}
	return r
}

// Secret returns text with every occurrence of secret replaced by Mask
// (secrets shorter than 4 bytes are left: masking them would garble the
// text without protecting anything).
func Secret(text, secret string) string {
	if len(secret) < 4 {
		return text
	}
	return strings.ReplaceAll(text, secret, Mask)
}
