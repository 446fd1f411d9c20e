package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CacheFingerprintFile is the file in a sample cache folder that records
// what the cache was made from (see BindCache).
const CacheFingerprintFile = ".mlperf-cache-fingerprint"

// ErrStaleCache marks a cache folder made from another data set or with
// another preprocessing than the run's.
var ErrStaleCache = errors.New("sample cache was made from other inputs")

// Fingerprint hashes what a cache's contents depend on: a description of
// the preprocessing (name, version, shapes, options) and of the source
// (see SourceFingerprint). It returns a hex SHA-256.
func Fingerprint(preprocessing string, source ...string) string {
	h := sha256.New()
	io.WriteString(h, preprocessing)
	for _, s := range source {
		h.Write([]byte{0})
		io.WriteString(h, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SourceFingerprint describes the source files of a data set cheaply: the
// full contents of the small index file (val_map.txt or similar; "" for
// none) and the name and size of every source file, in the given order.
// Two data sets with the same file names almost never agree on all the
// sizes; re-extracting the same data set keeps them.
func SourceFingerprint(index string, files []string) (string, error) {
	h := sha256.New()
	if index != "" {
		f, err := os.Open(index)
		if err != nil {
			return "", fmt.Errorf("harness: fingerprinting the data set: %w", err)
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("harness: fingerprinting the data set: %w", err)
		}
	}
	for _, p := range files {
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("harness: fingerprinting the data set: %w", err)
		}
		fmt.Fprintf(h, "\x00%s\x00%d", filepath.Base(p), st.Size())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BindCache prepares dir as a sample cache for inputs with fingerprint fp
// (see Fingerprint). A new or empty folder is created and stamped; a
// folder stamped with fp is reused. It refuses, naming the problem and the
// fix: a dir that is a file, a folder stamped with another fingerprint
// (ErrStaleCache: another data set or preprocessing), and a non-empty
// folder without a stamp (a cache from an older version, or not a cache).
func BindCache(dir, fp string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("harness: cache %s is a file; the cache is a folder of preprocessed samples: name a folder (it is created if missing)", dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("harness: creating the cache folder: %w", err)
		}
	case err != nil:
		return fmt.Errorf("harness: cache folder: %w", err)
	}
	stamp := filepath.Join(dir, CacheFingerprintFile)
	old, err := os.ReadFile(stamp)
	switch {
	case err == nil:
		if got := strings.TrimSpace(string(old)); got != fp {
			return fmt.Errorf("harness: cache %s: %w (its fingerprint %.12s…, this run's %.12s…): a different data set or preprocessing made it; delete the folder or name another one", dir, ErrStaleCache, got, fp)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("harness: cache folder: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("harness: cache folder: %w", err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("harness: cache %s: %w: the folder is not empty and has no %s, so what made it is unknown (an older version's cache, or not a cache): delete it or name an empty folder", dir, ErrStaleCache, CacheFingerprintFile)
	}
	if err := os.WriteFile(stamp, []byte(fp+"\n"), 0o644); err != nil {
		return fmt.Errorf("harness: stamping the cache folder: %w", err)
	}
	return nil
}
