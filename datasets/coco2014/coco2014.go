// Package coco2014 reads and writes the MLPerf Stable Diffusion XL data
// set as mlcommons/inference text_to_image/tools/coco.py lays it out:
//
//	<dir>/captions/captions.tsv          the 5000 prompts (QSL index = row)
//	<dir>/captions/captions_source.tsv   the reference's selection, same columns
//	<dir>/latents/latents.npy            the fixed initial noise (1, 4, 128, 128) float32
//	<dir>/statistics/val2014.npz         FID reference statistics (mu, sigma)
//
// The tsv files are tab-separated with a header (id, image_id, caption,
// height, width, file_name, coco_url) and pandas' quoting (a field with a
// quote is quoted, its quotes doubled). COCO images are not needed: FID
// uses the precomputed statistics.
package coco2014

import (
	"archive/zip"
	"bufio"
	"crypto/md5"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/preprocess"
)

// Layout and facts of the data set.
const (
	CaptionsFile = "captions/captions.tsv"
	SourceFile   = "captions/captions_source.tsv"
	LatentsFile  = "latents/latents.npy"
	StatsFile    = "statistics/val2014.npz"
	// Samples is the number of prompts of the full data set.
	Samples = 5000
	// SourceMD5 and LatentsMD5 are the MD5s of the reference's
	// captions_source.tsv and latents.npy (text_to_image/ at
	// mlcommons/inference master).
	SourceMD5  = "24ba91c1e0fc04e70895385b4a57dca1"
	LatentsMD5 = "e3ca8d78fda4f6001ef1dd2dea77ab05"
	// StatsGitBlob is the git blob id of the reference's
	// tools/val2014.npz (no checksum is published).
	StatsGitBlob = "806479d0693a33110526b6689aa26baddd995c7b"
)

// Header is the tsv header.
var Header = []string{"id", "image_id", "caption", "height", "width", "file_name", "coco_url"}

// ErrFormat is wrapped by errors about files not in the data set's format.
var ErrFormat = errors.New("coco2014: not the COCO-2014 captions format")

// Caption is one row of captions.tsv.
type Caption struct {
	ID, ImageID   int64
	Text          string
	Height, Width int
	FileName, URL string
}

// Dataset is a loaded captions file.
type Dataset struct {
	Path     string
	Captions []Caption
}

// Len is the number of prompts.
func (d *Dataset) Len() int { return len(d.Captions) }

// CaptionsPath is the captions file of a data set folder, or path itself
// when it is a file.
func CaptionsPath(path string) string {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return path
	}
	return filepath.Join(path, CaptionsFile)
}

// Load reads a data set folder's captions.tsv (or the tsv file given).
// count, if positive, keeps the first count rows.
func Load(path string, count int) (*Dataset, error) {
	p := CaptionsPath(path)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("coco2014: %w (want a data set folder with %s; see datasets/coco2014/download_dataset.sh or --data synthetic)", err, CaptionsFile)
	}
	defer f.Close()
	caps, err := ReadTSV(f)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, p)
	}
	if count > 0 && count < len(caps) {
		caps = caps[:count]
	}
	return &Dataset{Path: p, Captions: caps}, nil
}

// ReadTSV reads captions in the tsv format.
func ReadTSV(r io.Reader) ([]Caption, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.Comma = '\t'
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrFormat, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range []string{"id", "caption"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%w: no %q column in the header %q", ErrFormat, need, head)
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var caps []Caption
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%w: line %d has %d fields, the header %d", ErrFormat, line, len(rec), len(head))
		}
		var c Caption
		if c.ID, err = strconv.ParseInt(get(rec, "id"), 10, 64); err != nil {
			return nil, fmt.Errorf("%w: line %d: id %q", ErrFormat, line, get(rec, "id"))
		}
		c.ImageID, _ = strconv.ParseInt(get(rec, "image_id"), 10, 64)
		c.Height, _ = strconv.Atoi(get(rec, "height"))
		c.Width, _ = strconv.Atoi(get(rec, "width"))
		c.Text, c.FileName, c.URL = get(rec, "caption"), get(rec, "file_name"), get(rec, "coco_url")
		caps = append(caps, c)
	}
	if len(caps) == 0 {
		return nil, fmt.Errorf("%w: no captions", ErrFormat)
	}
	return caps, nil
}

// WriteTSV writes captions as pandas' to_csv(sep="\t", index=False)
// does: Python's csv QUOTE_MINIMAL (a field with a tab, a quote, \r or \n
// is quoted, its quotes doubled), "\n" line ends.
func WriteTSV(w io.Writer, caps []Caption) error {
	bw := bufio.NewWriter(w)
	row := func(fields ...string) {
		for i, f := range fields {
			if i > 0 {
				bw.WriteByte('\t')
			}
			if strings.ContainsAny(f, "\t\"\r\n") {
				f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
			}
			bw.WriteString(f)
		}
		bw.WriteByte('\n')
	}
	row(Header...)
	for _, c := range caps {
		row(strconv.FormatInt(c.ID, 10), strconv.FormatInt(c.ImageID, 10), c.Text,
			strconv.Itoa(c.Height), strconv.Itoa(c.Width), c.FileName, c.URL)
	}
	return bw.Flush()
}

// LoadLatents reads a data set folder's latents.npy (or the .npy file
// given): a (1, C, h, w) float32 array.
func LoadLatents(path string) ([]float32, []int, error) {
	p := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		p = filepath.Join(path, LatentsFile)
	}
	shape, data, err := preprocess.LoadNpy(p)
	if err != nil {
		return nil, nil, fmt.Errorf("coco2014: latents: %w (want the reference's latents.npy, (1, 4, 128, 128) float32)", err)
	}
	if len(shape) != 4 || shape[0] != 1 {
		return nil, nil, fmt.Errorf("coco2014: latents %s have shape %v; want (1, 4, 128, 128) as the reference's latents.npy", p, shape)
	}
	for i, v := range data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, nil, fmt.Errorf("coco2014: latents %s: value %d is %v: every image would come out NaN; the file is damaged: download it again with datasets/coco2014/download_dataset.sh or make a synthetic one (mlperf dataset synth coco2014)", p, i, v)
		}
	}
	return data, shape, nil
}

// Stats are FID reference statistics (pytorch-fid's mu and sigma).
type Stats struct {
	Mu    []float64
	Sigma []float64 // D×D row-major
}

// StatsPath is the statistics file of a data set folder.
func StatsPath(dir string) string { return filepath.Join(dir, StatsFile) }

// LoadStats reads an .npz with arrays mu (D) and sigma (D, D).
func LoadStats(path string) (*Stats, error) {
	m, err := preprocess.LoadNpz(path)
	if err != nil {
		return nil, fmt.Errorf("coco2014: FID statistics: %w (the reference's val2014.npz; see download_dataset.sh)", err)
	}
	mu, sigma := m["mu"], m["sigma"]
	if mu == nil || sigma == nil {
		return nil, fmt.Errorf("coco2014: %s: want arrays mu and sigma", path)
	}
	n := mu.Len()
	if len(mu.Shape) != 1 || len(sigma.Shape) != 2 || sigma.Shape[0] != n || sigma.Shape[1] != n {
		return nil, fmt.Errorf("coco2014: %s: mu %v and sigma %v, want (D,) and (D, D)", path, mu.Shape, sigma.Shape)
	}
	return &Stats{Mu: mu.Float64s(), Sigma: sigma.Float64s()}, nil
}

// npyF8 is a float64 .npy file.
func npyF8(shape []int, v []float64) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	s := strings.Join(dims, ", ")
	if len(shape) == 1 {
		s += ","
	}
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }", s)
	pad := 64 - (10+len(h)+1)%64
	h += strings.Repeat(" ", pad%64) + "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	b = append(b, h...)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// WriteStats writes statistics as numpy.savez does (mu.npy, sigma.npy in
// a zip).
func WriteStats(path string, s *Stats) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("coco2014: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("coco2014: %w", err)
	}
	zw := zip.NewWriter(f)
	d := len(s.Mu)
	for _, a := range []struct {
		name  string
		shape []int
		v     []float64
	}{{"mu.npy", []int{d}, s.Mu}, {"sigma.npy", []int{d, d}, s.Sigma}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: a.name, Method: zip.Store})
		if err == nil {
			_, err = w.Write(npyF8(a.shape, a.v))
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("coco2014: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("coco2014: %w", err)
	}
	return f.Close()
}

// SynthConfig sizes a synthetic data set.
type SynthConfig struct {
	// N is the number of captions (default 8).
	N int
	// Seed seeds the latents and statistics (default 1).
	Seed uint64
	// LatentSize is the latents' side (default 128, the reference's).
	LatentSize int
	// StatsDim is the FID feature width of the statistics (default 2048,
	// pytorch-fid's pool3; a synthetic Inception may be narrower).
	StatsDim int
}

// synthWords make the synthetic captions.
var synthWords = []string{"a", "man", "woman", "dog", "cat", "red", "small", "large", "sitting", "standing",
	"on", "next to", "a table", "the street", "a bench", "with", "two", "people", "a train", "the beach"}

// Synth writes a synthetic data set in the real layout: N captions in
// captions.tsv and captions_source.tsv, latents.npy of (1, 4, s, s)
// standard-normal float32 values, and FID statistics (a seeded mean and
// a positive-definite covariance) of StatsDim features.
func Synth(dir string, cfg SynthConfig) error {
	if cfg.N <= 0 {
		cfg.N = 8
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.LatentSize <= 0 {
		cfg.LatentSize = 128
	}
	if cfg.StatsDim <= 0 {
		cfg.StatsDim = 2048
	}
	rng := onnx.SplitMix64{State: cfg.Seed}
	caps := make([]Caption, cfg.N)
	for i := range caps {
		var w []string
		for range 5 + int(rng.Next()%5) {
			w = append(w, synthWords[rng.Next()%uint64(len(synthWords))])
		}
		text := strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
		if i == 1 {
			text = `A sign that reads "stop" next to a bench.` // exercises tsv quoting
		}
		img := 100000 + int64(i)*37
		caps[i] = Caption{ID: int64(1000 + 7*i), ImageID: img, Text: text, Height: 480, Width: 640,
			FileName: fmt.Sprintf("COCO_val2014_%012d.jpg", img), URL: fmt.Sprintf("http://images.cocodataset.org/val2014/COCO_val2014_%012d.jpg", img)}
	}
	for _, name := range []string{CaptionsFile, SourceFile} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("coco2014: %w", err)
		}
		f, err := os.Create(p)
		if err != nil {
			return fmt.Errorf("coco2014: %w", err)
		}
		err = WriteTSV(f, caps)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("coco2014: %w", err)
		}
	}
	s := cfg.LatentSize
	lat := make([]float32, 4*s*s)
	for i := range lat {
		lat[i] = float32(normal(&rng))
	}
	if err := os.MkdirAll(filepath.Join(dir, "latents"), 0o755); err != nil {
		return fmt.Errorf("coco2014: %w", err)
	}
	if err := preprocess.SaveNpy(filepath.Join(dir, LatentsFile), []int{1, 4, s, s}, lat); err != nil {
		return fmt.Errorf("coco2014: %w", err)
	}
	d := cfg.StatsDim
	st := &Stats{Mu: make([]float64, d), Sigma: make([]float64, d*d)}
	for i := range st.Mu {
		st.Mu[i] = 0.1 * normal(&rng)
	}
	// Σ = A·Aᵀ/k + 0.5·I with A d×k standard normal (k = 16): positive
	// definite and cheap to make at d = 2048.
	k := min(d, 16)
	a := make([]float64, d*k)
	for i := range a {
		a[i] = normal(&rng)
	}
	for i := range d {
		for j := 0; j <= i; j++ {
			var v float64
			for l := range k {
				v += a[i*k+l] * a[j*k+l]
			}
			v /= float64(k)
			if i == j {
				v += 0.5
			}
			st.Sigma[i*d+j], st.Sigma[j*d+i] = v, v
		}
	}
	return WriteStats(StatsPath(dir), st)
}

// normal is a standard normal draw (Box–Muller).
func normal(r *onnx.SplitMix64) float64 {
	u1 := (float64(r.Next()>>11) + 0.5) / (1 << 53)
	u2 := float64(r.Next()>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// VerifyReport is the outcome of Verify.
type VerifyReport struct {
	Lines []string
	OK    bool
}

func fileMD5(p string) (string, error) {
	f, err := os.Open(p)
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

// Verify checks a data set folder: captions.tsv readable with Samples
// distinct images, captions_source.tsv and latents.npy with the
// reference's MD5s, and the FID statistics' shapes. Each check is one
// line; OK is false if any failed.
func Verify(dir string) VerifyReport {
	var r VerifyReport
	r.OK = true
	add := func(ok bool, format string, args ...any) {
		s := "OK    "
		if !ok {
			s, r.OK = "FAIL  ", false
		}
		r.Lines = append(r.Lines, s+fmt.Sprintf(format, args...))
	}
	if ds, err := Load(dir, 0); err != nil {
		add(false, "%s: %v", CaptionsFile, err)
	} else {
		imgs := map[int64]bool{}
		for _, c := range ds.Captions {
			imgs[c.ImageID] = true
		}
		add(ds.Len() == Samples && len(imgs) == Samples, "%s: %d captions of %d images (want %d)", CaptionsFile, ds.Len(), len(imgs), Samples)
	}
	for _, f := range []struct{ name, md5 string }{{SourceFile, SourceMD5}, {LatentsFile, LatentsMD5}} {
		got, err := fileMD5(filepath.Join(dir, f.name))
		if err != nil {
			add(false, "%s: %v", f.name, err)
			continue
		}
		add(got == f.md5, "%s: md5 %s (want %s)", f.name, got, f.md5)
	}
	if _, shape, err := LoadLatents(dir); err != nil {
		add(false, "%s: %v", LatentsFile, err)
	} else {
		add(shape[1] == 4 && shape[2] == 128 && shape[3] == 128, "%s: shape %v (want [1 4 128 128])", LatentsFile, shape)
	}
	if s, err := LoadStats(StatsPath(dir)); err != nil {
		add(false, "%s: %v", StatsFile, err)
	} else {
		add(len(s.Mu) == 2048, "%s: %d features (want 2048, pytorch-fid pool3)", StatsFile, len(s.Mu))
	}
	return r
}
