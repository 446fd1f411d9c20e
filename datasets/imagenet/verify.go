package imagenet

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ChecksumFile is the MD5 manifest download_dataset.sh writes into the
// dataset folder (md5sum format, paths relative to the folder).
const ChecksumFile = "imagenet_val.md5"

// VerifyReport is what Verify found.
type VerifyReport struct {
	Listed  int      // images listed in val_map.txt
	Missing []string // listed images not on disk
	// Checked is the number of files whose MD5 was compared (0 when the
	// folder has no ChecksumFile); Mismatched lists those that differ or
	// are unreadable.
	Checked    int
	Mismatched []string
}

// OK reports whether nothing is missing or damaged and, when expect > 0,
// exactly expect images are listed.
func (r *VerifyReport) OK(expect int) bool {
	return len(r.Missing) == 0 && len(r.Mismatched) == 0 && (expect <= 0 || r.Listed == expect)
}

// String summarises the report in one line per finding.
func (r *VerifyReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "val_map.txt: %d images listed, %d present, %d missing\n", r.Listed, r.Listed-len(r.Missing), len(r.Missing))
	if r.Checked == 0 {
		fmt.Fprintf(&b, "checksums: no %s (written by download_dataset.sh); presence checked only\n", ChecksumFile)
	} else {
		fmt.Fprintf(&b, "checksums: %d of %d files differ from %s\n", len(r.Mismatched), r.Checked, ChecksumFile)
	}
	return b.String()
}

// Verify checks the dataset folder dir as verify_dataset.sh does: every
// image listed in val_map.txt must exist, and when dir holds ChecksumFile
// every file it names must still have its MD5. A missing or malformed
// val_map.txt or manifest is an error; missing or damaged images are
// findings in the report.
func Verify(dir string) (*VerifyReport, error) {
	f, err := os.Open(filepath.Join(dir, ValMapName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s (prepare the data set with download_dataset.sh or `mlperf dataset synth imagenet`)", ErrNoValMap, filepath.Join(dir, ValMapName))
		}
		return nil, fmt.Errorf("imagenet: %w", err)
	}
	samples, err := ParseValMap(f, 0)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("imagenet: %s: %w", filepath.Join(dir, ValMapName), err)
	}
	r := &VerifyReport{Listed: len(samples)}
	for _, s := range samples {
		if _, err := os.Stat(joinPath(dir, s.Path)); err != nil {
			r.Missing = append(r.Missing, s.Path)
		}
	}
	sums, err := os.Open(filepath.Join(dir, ChecksumFile))
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("imagenet: %w", err)
	}
	defer sums.Close()
	sc := bufio.NewScanner(sums)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		sum, name, ok := strings.Cut(text, " ")
		name = strings.TrimPrefix(strings.TrimLeft(name, " *"), "./")
		if !ok || len(sum) != 32 || name == "" {
			return nil, fmt.Errorf("imagenet: %s line %d: want \"<md5> <file>\"", filepath.Join(dir, ChecksumFile), line)
		}
		r.Checked++
		got, err := md5File(filepath.Join(dir, name))
		if err != nil || got != strings.ToLower(sum) {
			r.Mismatched = append(r.Mismatched, name)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("imagenet: %s: %w", filepath.Join(dir, ChecksumFile), err)
	}
	return r, nil
}

func md5File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
