// Package librispeech reads and writes the data set of the MLPerf Whisper
// benchmark: LibriSpeech dev-clean and dev-other, converted to WAV and
// repacked into clips of at most 30 s (mlcommons/inference speech2text:
// download_dataset.sh, utils/convert_librispeech.py,
// utils/repackage_librispeech.py), described by dev-all-repack.json.
//
// Layout, as the reference writes it under its data folder:
//
//	dev-all-repack.json              a JSON list, one entry per clip:
//	  {"transcript": "...",          lower case, utterances joined by spaces
//	   "files": [{"channels": 1, "sample_rate": 16000.0, "bitdepth": 16,
//	              "bitrate": 256000.0, "duration": 29.5, "num_samples": 472000,
//	              "encoding": "Signed Integer PCM", "silent": false,
//	              "fname": ".../dev-all-repack/1272-128104_0.wav", "speed": 1}],
//	   "original_duration": 29.5, "original_num_samples": 472000}
//	dev-all-repack/<speaker>-<chapter>_<n>.wav   16 kHz mono 16-bit PCM
//
// Reading follows the reference's Manifest (speech2text/manifest.py) as
// accuracy_eval.py and QSL.py construct it: entries whose
// original_duration exceeds 30 s are dropped (and counted), as are entries
// whose transcript is not a string; a sample's audio is the file of speed
// 1; sample i of the loadgen is the i-th entry kept. The 1,633 entries of
// the official data set all stay.
//
// A file name is joined to the data folder as Python's os.path.join does
// (an absolute name stands alone); when that file does not exist, the
// same name under the data folder's dev-all-repack/ is tried, so a data
// set made with absolute paths (the reference's Docker layout, /data/...)
// can be moved.
package librispeech

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/preprocess/audio"
)

// Data set facts.
const (
	// ManifestName is the repacked manifest's file name.
	ManifestName = "dev-all-repack.json"
	// RepackDir is the folder of the repacked clips.
	RepackDir = "dev-all-repack"
	// SampleRate is the audio's rate.
	SampleRate = 16000
	// MaxDuration is the longest clip kept, in seconds (QSL.py's
	// MAX_DURATION default).
	MaxDuration = 30.0
	// MaxSamples is MaxDuration in samples.
	MaxSamples = int(MaxDuration * SampleRate)
	// PadDuration is the silence between repacked utterances, in seconds.
	PadDuration = 0.5
	// OfficialSamples is the clip count of the official data set.
	OfficialSamples = 1633
	// maxManifestBytes bounds the manifest read (the official one is
	// about 1 MB).
	maxManifestBytes = 256 << 20
)

// ErrFormat is wrapped by errors about a manifest that is not the
// repacked LibriSpeech format.
var ErrFormat = errors.New("librispeech: not a repacked LibriSpeech manifest")

// fixHint says how to get a good data set.
const fixHint = "re-create it with datasets/librispeech/download_dataset.sh (or 'mlperf dataset synth librispeech' for a small one) and check it with 'mlperf dataset verify librispeech'"

// File is one audio file of a manifest entry (sox's file info, as
// convert_librispeech.py and repackage_librispeech.py record it).
type File struct {
	Channels   int         `json:"channels"`
	SampleRate pyFloat     `json:"sample_rate"`
	BitDepth   int         `json:"bitdepth"`
	BitRate    pyFloat     `json:"bitrate"`
	Duration   pyFloat     `json:"duration"`
	NumSamples int64       `json:"num_samples"`
	Encoding   string      `json:"encoding"`
	Silent     bool        `json:"silent"`
	Fname      string      `json:"fname"`
	Speed      json.Number `json:"speed"`
}

// Entry is one manifest entry. Transcript is kept raw: the reference
// drops an entry whose transcript is not a JSON string.
type Entry struct {
	Transcript         json.RawMessage `json:"transcript"`
	Files              []File          `json:"files"`
	OriginalDuration   pyFloat         `json:"original_duration"`
	OriginalNumSamples int64           `json:"original_num_samples"`
}

// Sample is one clip the benchmark runs.
type Sample struct {
	// Audio is the resolved path of the clip's WAV (or FLAC) file.
	Audio string
	// Transcript is the manifest's transcript.
	Transcript string
	// Reference is the transcript as accuracy_eval.py scores it: the
	// characters outside the 42 labels dropped.
	Reference string
	// Duration is original_duration in seconds.
	Duration float64
	// NumSamples is the manifest's original_num_samples.
	NumSamples int64
	// Entry is the index of the manifest entry.
	Entry int
}

// Dataset is an opened manifest. It is read-only and safe for concurrent
// use.
type Dataset struct {
	// Dir is the data folder file names are joined to.
	Dir string
	// Manifest is the manifest's path.
	Manifest string
	// Samples are the kept entries, in manifest order.
	Samples []Sample
	// Duration and FilteredDuration are the total seconds kept and
	// dropped; Dropped counts the dropped entries.
	Duration, FilteredDuration float64
	Dropped                    int
}

// OpenDir opens dir/dev-all-repack.json with dir as the data folder.
func OpenDir(dir string) (*Dataset, error) {
	return Open(filepath.Join(dir, ManifestName), dir)
}

// Open reads the manifest at path; file names are resolved against dir
// (the manifest's folder when empty). Every kept sample's audio file must
// exist.
func Open(path, dir string) (*Dataset, error) {
	if dir == "" {
		dir = filepath.Dir(path)
	}
	entries, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Dir: dir, Manifest: path}
	for i, e := range entries {
		dur := float64(e.OriginalDuration)
		if dur > MaxDuration {
			d.FilteredDuration += dur
			d.Dropped++
			continue
		}
		var tr string
		if json.Unmarshal(e.Transcript, &tr) != nil {
			d.FilteredDuration += dur
			d.Dropped++
			continue
		}
		var fname string
		for _, f := range e.Files {
			if v, err := f.Speed.Float64(); err == nil && v == 1 {
				fname = f.Fname
				break
			}
		}
		if fname == "" {
			return nil, fmt.Errorf("%w: %s entry %d has no file of speed 1", ErrFormat, path, i)
		}
		p, err := resolve(dir, fname)
		if err != nil {
			return nil, fmt.Errorf("librispeech: %s entry %d: %w; %s", path, i, err, fixHint)
		}
		d.Samples = append(d.Samples, Sample{Audio: p, Transcript: tr, Reference: FilterTranscript(tr),
			Duration: dur, NumSamples: e.OriginalNumSamples, Entry: i})
		d.Duration += dur
	}
	if len(d.Samples) == 0 {
		return nil, fmt.Errorf("%w: %s has no clip of at most 30 s", ErrFormat, path)
	}
	return d, nil
}

// ReadManifest reads a manifest's entries.
func ReadManifest(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("librispeech: %w; %s", err, fixHint)
	}
	defer f.Close()
	var entries []Entry
	dec := json.NewDecoder(io.LimitReader(f, maxManifestBytes))
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	return entries, nil
}

// resolve joins fname to dir as os.path.join, falling back to
// dir/dev-all-repack/<base name>.
func resolve(dir, fname string) (string, error) {
	p := fname
	if !filepath.IsAbs(fname) {
		p = filepath.Join(dir, fname)
	}
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p, nil
	}
	alt := filepath.Join(dir, RepackDir, filepath.Base(fname))
	if st, err := os.Stat(alt); err == nil && st.Mode().IsRegular() {
		return alt, nil
	}
	if alt == p {
		return "", fmt.Errorf("audio file %s not found", p)
	}
	return "", fmt.Errorf("audio file %q not found (looked at %s and %s)", fname, p, alt)
}

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.Samples) }

// References are the samples' transcripts as the scorer reads them.
func (d *Dataset) References() []string {
	r := make([]string, len(d.Samples))
	for i, s := range d.Samples {
		r[i] = s.Reference
	}
	return r
}

// Waveform loads sample i as QSL.py does (librosa.load(path, sr=16000)):
// 16 kHz float32, stereo averaged to mono; another rate or a clip longer
// than 30 s is an error naming the file.
func (d *Dataset) Waveform(i int) ([]float32, error) {
	if i < 0 || i >= len(d.Samples) {
		return nil, fmt.Errorf("librispeech: sample %d out of range [0, %d)", i, len(d.Samples))
	}
	w, err := audio.LoadWaveform(d.Samples[i].Audio, audio.LoadConfig{Rate: SampleRate, MaxFrames: MaxSamples})
	if err != nil {
		return nil, fmt.Errorf("librispeech: sample %d: %w", i, err)
	}
	return w.Samples, nil
}

// Labels is the reference's alphabet (speech2text accuracy_eval.py and
// reference_SUT.py labels): a response's label index i stands for
// Labels[i], and transcripts are scored over these characters only.
const Labels = " abcdefghijklmnopqrstuvwxyz'0123456789$%+-"

var labelIndex = func() (m [128]int8) {
	for i := range m {
		m[i] = -1
	}
	for i := range len(Labels) {
		m[Labels[i]] = int8(i)
	}
	return m
}()

// LabelOf returns r's index in Labels, -1 if r is outside the alphabet.
func LabelOf(r rune) int {
	if r < 0 || r >= 128 {
		return -1
	}
	return int(labelIndex[r])
}

// FilterTranscript is the reference Manifest's parse_transcript followed
// by __gather_predictions: the transcript with every character outside
// the alphabet dropped.
func FilterTranscript(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		if LabelOf(r) >= 0 {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
