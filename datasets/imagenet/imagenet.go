// Package imagenet reads the ImageNet 2012 validation set in the layout the
// MLPerf reference expects (an image folder plus val_map.txt), generates
// synthetic stand-ins in the same format, and carries the official
// calibration lists.
//
// The sample order is the reference's (python/imagenet.py): QSL index i is
// the i-th listed image that exists on disk; listed images that are missing
// are skipped, with a warning, and shift later indices.
package imagenet

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ValMapName is the default list file inside the dataset folder.
const ValMapName = "val_map.txt"

// Size is the number of images of the full validation set.
const Size = 50000

var (
	// ErrNoValMap is wrapped when the list file cannot be opened.
	ErrNoValMap = errors.New("imagenet: val_map.txt not found")
	// ErrBadValMap is wrapped when a line of the list is malformed.
	ErrBadValMap = errors.New("imagenet: malformed val_map.txt")
	// ErrEmpty is returned when no listed image exists.
	ErrEmpty = errors.New("imagenet: no images in image list found")
)

// Sample is one listed image.
type Sample struct {
	// Path is the image path relative to the dataset folder, as listed.
	Path string
	// Label is the ImageNet class, 0..999.
	Label int
}

// Dataset is a loaded validation list. It is read-only after Load and safe
// for concurrent use.
type Dataset struct {
	// Dir is the dataset folder image paths are relative to.
	Dir string
	// Samples holds the images found on disk, in list order: Samples[i] is
	// QSL index i.
	Samples []Sample
	// Missing lists the listed images that were not found, in list order.
	Missing []string
}

// Options tune Load. The zero value reads Dir/val_map.txt completely and
// writes warnings to os.Stderr.
type Options struct {
	// ListFile is the list to read; empty means Dir/val_map.txt (the
	// reference's --dataset-list default).
	ListFile string
	// Count, if positive, reads only the first Count lines of the list
	// (the reference's --count), before missing images are skipped.
	Count int
	// Warn receives warnings about missing images; nil means os.Stderr.
	Warn io.Writer
}

// Load reads the list file and checks which images exist, as the
// reference does. A missing or malformed list is an error naming the file;
// missing images are skipped with a warning; a list with no existing image
// is ErrEmpty.
func Load(dir string, opt Options) (*Dataset, error) {
	list := opt.ListFile
	if list == "" {
		list = filepath.Join(dir, ValMapName)
	}
	f, err := os.Open(list)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s (give the dataset folder holding val_map.txt, or make one with `mlperf dataset synth imagenet`; see datasets/imagenet/download_dataset.sh for the real set): %w", ErrNoValMap, list, err)
		}
		return nil, fmt.Errorf("imagenet: %w", err)
	}
	defer f.Close()
	samples, err := ParseValMap(f, opt.Count)
	if err != nil {
		return nil, fmt.Errorf("imagenet: %s: %w", list, err)
	}
	warn := opt.Warn
	if warn == nil {
		warn = os.Stderr
	}
	ds := &Dataset{Dir: dir, Samples: make([]Sample, 0, len(samples))}
	for _, s := range samples {
		if _, err := os.Stat(joinPath(dir, s.Path)); err != nil {
			if len(ds.Missing) < 10 {
				fmt.Fprintf(warn, "imagenet: warning: %s not found, skipped (later samples shift down)\n", joinPath(dir, s.Path))
			}
			ds.Missing = append(ds.Missing, s.Path)
			continue
		}
		ds.Samples = append(ds.Samples, s)
	}
	if n := len(ds.Missing); n > 0 {
		fmt.Fprintf(warn, "imagenet: warning: reduced image list, %d of %d images not found\n", n, len(samples))
	}
	if len(ds.Samples) == 0 {
		return nil, fmt.Errorf("%w: %s lists %d images, none exists under %s", ErrEmpty, list, len(samples), dir)
	}
	return ds, nil
}

// NumClasses is the number of ImageNet classes: val_map.txt labels are
// 0..NumClasses-1.
const NumClasses = 1000

// ParseValMap parses val_map.txt lines "<relative path><whitespace><label>"
// (split on runs of whitespace after trimming, as the reference's
// re.split(r"\s+", line.strip())). Blank lines are ignored; any other line
// without exactly two fields, with a non-integer label or with a label
// outside 0..NumClasses-1 is an error naming the line. count > 0 stops after that many lines.
func ParseValMap(r io.Reader, count int) ([]Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []Sample
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if count > 0 && len(out) >= count {
			break
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%w: line %d: %q: want \"<image path> <label>\"", ErrBadValMap, line, text)
		}
		label, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: label %q is not an integer", ErrBadValMap, line, fields[1])
		}
		if label < 0 || label >= NumClasses {
			return nil, fmt.Errorf("%w: line %d: label %d is outside the ImageNet classes 0 to %d (is this the ILSVRC2012 val_map.txt?)", ErrBadValMap, line, label, NumClasses-1)
		}
		out = append(out, Sample{Path: fields[0], Label: label})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: line %d: %w", ErrBadValMap, line+1, err)
	}
	return out, nil
}

// Len is the number of samples (the QSL's total sample count).
func (d *Dataset) Len() int { return len(d.Samples) }

// ImagePath returns the file of sample i.
func (d *Dataset) ImagePath(i int) string { return joinPath(d.Dir, d.Samples[i].Path) }

// joinPath joins like Python's os.path.join, which the reference uses: an
// absolute listed path is taken as is.
func joinPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// Label returns the label of sample i.
func (d *Dataset) Label(i int) int { return d.Samples[i].Label }

//go:embed cal_image_list_option_1.txt cal_image_list_option_2.txt
var calFiles embed.FS

// CalibrationList returns the image file names of the official MLPerf
// ImageNet calibration list option 1 or 2 (500 images each; use one of
// them). Option 2's second column (0..499, undocumented) is dropped.
func CalibrationList(option int) ([]string, error) {
	if option != 1 && option != 2 {
		return nil, fmt.Errorf("imagenet: calibration list option %d does not exist (1 or 2)", option)
	}
	data, err := calFiles.ReadFile(fmt.Sprintf("cal_image_list_option_%d.txt", option))
	if err != nil {
		return nil, fmt.Errorf("imagenet: %w", err)
	}
	var names []string
	for _, l := range bytes.Split(data, []byte("\n")) {
		if f := strings.Fields(string(l)); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names, nil
}
