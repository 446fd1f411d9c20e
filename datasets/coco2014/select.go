package coco2014

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Selection facts of text_to_image/tools/coco.py.
const (
	// SelectSeed is coco.py's --seed default.
	SelectSeed = 2023
	// AnnotationsMember is the captions file inside
	// annotations_trainval2014.zip.
	AnnotationsMember = "annotations/captions_val2014.json"
	// AnnotationsSHA256 is the SHA-256 of annotations_trainval2014.zip
	// that coco.py pins.
	AnnotationsSHA256 = "031296bbc80c45a1d1f76bf9a90ead27e94e99ec629208449507a4917a3bf009"
)

// mt19937 is the Mersenne Twister of numpy's legacy RandomState, seeded
// with an integer as RandomState(seed) does (init_genrand).
type mt19937 struct {
	mt  [624]uint32
	idx int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{idx: 624}
	m.mt[0] = seed
	for i := 1; i < 624; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.idx >= 624 {
		for i := range 624 {
			y := m.mt[i]&0x80000000 | m.mt[(i+1)%624]&0x7fffffff
			v := m.mt[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.mt[i] = v
		}
		m.idx = 0
	}
	y := m.mt[m.idx]
	m.idx++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// interval is numpy's random_interval: a uniform integer in [0, max] by
// masked rejection of 32-bit draws (max < 2³²).
func (m *mt19937) interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	for s := 1; s < 32; s <<= 1 {
		mask |= mask >> s
	}
	for {
		if v := m.next() & mask; v <= max {
			return v
		}
	}
}

// Permutation is numpy.random.RandomState(seed).permutation(n): arange(n)
// shuffled by the legacy Fisher–Yates (from the end, random_interval).
func Permutation(seed uint32, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	m := newMT19937(seed)
	for i := n - 1; i > 0; i-- {
		j := int(m.interval(uint32(i)))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// annotationsFile is the part of captions_val2014.json the selection reads.
type annotationsFile struct {
	Annotations []struct {
		ID      int64  `json:"id"`
		ImageID int64  `json:"image_id"`
		Caption string `json:"caption"`
	} `json:"annotations"`
	Images []struct {
		ID       int64  `json:"id"`
		Height   int    `json:"height"`
		Width    int    `json:"width"`
		FileName string `json:"file_name"`
		URL      string `json:"coco_url"`
	} `json:"images"`
}

// Select is coco.py's selection from captions_val2014.json: the first
// caption of each image (file order), sorted by caption id, shuffled as
// pandas' sample(frac=1, random_state=seed) does (the permutation of
// RandomState(seed)), the first max kept with newlines removed and spaces
// trimmed, joined with their image's size, file name and URL, sorted by
// caption id.
func Select(r io.Reader, max int, seed uint32) ([]Caption, error) {
	var a annotationsFile
	if err := json.NewDecoder(r).Decode(&a); err != nil {
		return nil, fmt.Errorf("%w: captions_val2014.json: %v", ErrFormat, err)
	}
	seen := map[int64]bool{}
	var caps []Caption
	for _, x := range a.Annotations {
		if seen[x.ImageID] {
			continue
		}
		seen[x.ImageID] = true
		caps = append(caps, Caption{ID: x.ID, ImageID: x.ImageID, Text: x.Caption})
	}
	if len(caps) == 0 {
		return nil, fmt.Errorf("%w: captions_val2014.json has no annotations", ErrFormat)
	}
	slices.SortStableFunc(caps, func(p, q Caption) int { return cmpInt(p.ID, q.ID) })
	perm := Permutation(seed, len(caps))
	if max <= 0 || max > len(caps) {
		max = len(caps)
	}
	type img struct {
		h, w      int
		file, url string
	}
	images := map[int64]img{}
	for _, x := range a.Images {
		images[x.ID] = img{x.Height, x.Width, x.FileName, x.URL}
	}
	var out []Caption
	for _, k := range perm[:max] {
		c := caps[k]
		c.Text = strings.TrimSpace(strings.ReplaceAll(c.Text, "\n", ""))
		im, ok := images[c.ImageID]
		if !ok { // the inner merge drops it
			continue
		}
		c.Height, c.Width, c.FileName, c.URL = im.h, im.w, im.file, im.url
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(p, q Caption) int { return cmpInt(p.ID, q.ID) })
	return out, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SelectFile runs Select on an annotations_trainval2014.zip (its
// annotations/captions_val2014.json) or a captions_val2014.json, and
// writes dir/captions/captions.tsv (and captions_source.tsv when
// absent).
func SelectFile(src, dir string, max int, seed uint32) (int, error) {
	var r io.Reader
	if strings.HasSuffix(strings.ToLower(src), ".zip") {
		z, err := zip.OpenReader(src)
		if err != nil {
			return 0, fmt.Errorf("coco2014: %w", err)
		}
		defer z.Close()
		f, err := z.Open(AnnotationsMember)
		if err != nil {
			return 0, fmt.Errorf("coco2014: %s has no %s: %w", src, AnnotationsMember, err)
		}
		defer f.Close()
		r = f
	} else {
		f, err := os.Open(src)
		if err != nil {
			return 0, fmt.Errorf("coco2014: %w", err)
		}
		defer f.Close()
		r = f
	}
	caps, err := Select(r, max, seed)
	if err != nil {
		return 0, err
	}
	for _, name := range []string{CaptionsFile, SourceFile} {
		p := filepath.Join(dir, name)
		if name == SourceFile {
			if _, err := os.Stat(p); err == nil {
				continue
			}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, fmt.Errorf("coco2014: %w", err)
		}
		f, err := os.Create(p)
		if err != nil {
			return 0, fmt.Errorf("coco2014: %w", err)
		}
		err = WriteTSV(f, caps)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, fmt.Errorf("coco2014: %w", err)
		}
	}
	return len(caps), nil
}
