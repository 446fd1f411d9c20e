package librispeech

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/internal/pynum"
	"github.com/mlperf-go/inference/preprocess/audio"
)

// pyFloat is a JSON number written as Python's json module writes a float
// (repr: 16000.0, 29.565).
type pyFloat float64

// MarshalJSON writes Python's float repr.
func (f pyFloat) MarshalJSON() ([]byte, error) { return []byte(pynum.FloatRepr(float64(f))), nil }

// Utterance is one LibriSpeech utterance: its id (speaker-chapter-n), its
// transcript as convert_librispeech.py keeps it (lower case, stripped)
// and its 16-bit samples.
type Utterance struct {
	ID         string
	Transcript string
	PCM        []int16
}

// chapter is the reference's get_source_name: the first two dash-separated
// fields of the id.
func chapter(id string) string {
	f := strings.SplitN(id, "-", 3)
	if len(f) < 2 {
		return id
	}
	return f[0] + "-" + f[1]
}

// Clip is one repacked clip: the utterances it joins.
type Clip struct {
	Name       string // <chapter>_<n>
	Utterances []Utterance
}

// Pack groups one chapter's utterances as repackage_librispeech.py does:
// in order, utterances longer than 30 s skipped, each clip grown while
// adding the next utterance and a 0.5 s pause keeps it within 30 s.
// Durations are compared in float64 as the script accumulates them.
func Pack(key string, utts []Utterance) []Clip {
	var (
		clips []Clip
		cur   []Utterance
		dur   float64
	)
	flush := func() {
		clips = append(clips, Clip{Name: fmt.Sprintf("%s_%d", key, len(clips)), Utterances: cur})
		cur, dur = nil, 0
	}
	for _, u := range utts {
		d := float64(len(u.PCM)) / SampleRate
		if d > MaxDuration {
			continue
		}
		if len(cur) > 0 && dur+PadDuration+d > MaxDuration {
			flush()
		}
		cur = append(cur, u)
		dur += d
		if len(cur) > 1 {
			dur += PadDuration
		}
	}
	if len(cur) > 0 {
		flush()
	}
	return clips
}

// Join is prepare_clip: the utterances' samples with 0.5 s of silence
// between them, and their transcripts joined by spaces. The reference
// reads 16-bit PCM as float (÷32768) and writes it back with libsndfile
// (×32768), so the samples are copied unchanged.
func (c Clip) Join() ([]int16, string) {
	var pcm []int16
	var tr []string
	pad := make([]int16, int(PadDuration*SampleRate))
	for i, u := range c.Utterances {
		if i > 0 {
			pcm = append(pcm, pad...)
		}
		pcm = append(pcm, u.PCM...)
		tr = append(tr, u.Transcript)
	}
	return pcm, strings.Join(tr, " ")
}

// entryFor is get_sample_json for a clip of n samples.
func entryFor(transcript, fname string, n int) Entry {
	d := pyFloat(float64(n) / SampleRate)
	t, _ := json.Marshal(transcript)
	return Entry{
		Transcript: t,
		Files: []File{{Channels: 1, SampleRate: SampleRate, BitDepth: 16, BitRate: 256000, Duration: d,
			NumSamples: int64(n), Encoding: "Signed Integer PCM", Fname: fname, Speed: "1"}},
		OriginalDuration: d, OriginalNumSamples: int64(n),
	}
}

// Writer writes a repacked data set: the clips' WAV files under
// out/dev-all-repack and, on Close, out/dev-all-repack.json. It is not
// safe for concurrent use.
type Writer struct {
	out     string
	entries []Entry
}

// NewWriter creates out/dev-all-repack.
func NewWriter(out string) (*Writer, error) {
	if err := os.MkdirAll(filepath.Join(out, RepackDir), 0o755); err != nil {
		return nil, fmt.Errorf("librispeech: %w", err)
	}
	return &Writer{out: out}, nil
}

// Add writes one clip. Its manifest fname is dev-all-repack/<name>.wav,
// relative to the data folder.
func (w *Writer) Add(c Clip) error {
	pcm, tr := c.Join()
	rel := RepackDir + "/" + c.Name + ".wav"
	var buf bytes.Buffer
	if err := audio.WriteWAV16(&buf, SampleRate, 1, pcm); err != nil {
		return fmt.Errorf("librispeech: %w", err)
	}
	if err := os.WriteFile(filepath.Join(w.out, filepath.FromSlash(rel)), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("librispeech: %w", err)
	}
	w.entries = append(w.entries, entryFor(tr, rel, len(pcm)))
	return nil
}

// Close writes the manifest as json.dump(..., indent=2) writes it.
func (w *Writer) Close() error {
	b, err := MarshalManifest(w.entries)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(w.out, ManifestName), b, 0o644); err != nil {
		return fmt.Errorf("librispeech: %w", err)
	}
	return nil
}

// MarshalManifest encodes entries as Python's json.dump(entries, f,
// indent=2) does for the reference's dictionaries (key order, float
// repr, ASCII escapes).
func MarshalManifest(entries []Entry) ([]byte, error) {
	if entries == nil {
		entries = []Entry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		return nil, fmt.Errorf("librispeech: %w", err)
	}
	return bytes.TrimSuffix(asciiEscape(buf.Bytes()), []byte("\n")), nil
}

// asciiEscape writes non-ASCII characters as \uXXXX (json.dump's
// ensure_ascii).
func asciiEscape(b []byte) []byte {
	if !slices.ContainsFunc(b, func(c byte) bool { return c >= 0x80 }) {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r < 0x10000:
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		}
	}
	return out.Bytes()
}

// Prepare converts an extracted LibriSpeech tree (src holds dev-clean
// and dev-other, or dev-all: <speaker>/<chapter>/<id>.flac with
// <speaker>-<chapter>.trans.txt) into the repacked data set under out,
// as download_dataset.sh's convert and repack steps do. Chapters are
// processed in sorted order (the reference follows the file system's
// glob order, so its manifest order may differ; the clips are the same).
// Every FLAC must be 16 kHz mono 16-bit, as LibriSpeech's are.
func Prepare(src, out string) (int, error) {
	var trans []string
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".trans.txt") {
			trans = append(trans, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("librispeech: %w", err)
	}
	if len(trans) == 0 {
		return 0, fmt.Errorf("librispeech: no *.trans.txt under %s: is it an extracted LibriSpeech (dev-clean, dev-other)?", src)
	}
	// Group by chapter key; a chapter's utterances keep their file order.
	byKey := map[string][]string{}
	for _, t := range trans {
		k := strings.TrimSuffix(filepath.Base(t), ".trans.txt")
		byKey[k] = append(byKey[k], t)
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w, err := NewWriter(out)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		var utts []Utterance
		for _, t := range byKey[k] {
			u, err := readChapter(t)
			if err != nil {
				return 0, err
			}
			utts = append(utts, u...)
		}
		for _, c := range Pack(k, utts) {
			if err := w.Add(c); err != nil {
				return 0, err
			}
			n++
		}
	}
	return n, w.Close()
}

// readChapter reads a *.trans.txt and its FLAC files.
func readChapter(trans string) ([]Utterance, error) {
	f, err := os.Open(trans)
	if err != nil {
		return nil, fmt.Errorf("librispeech: %w", err)
	}
	defer f.Close()
	var utts []Utterance
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for line := 1; sc.Scan(); line++ {
		id, text, ok := strings.Cut(sc.Text(), " ")
		if !ok && strings.TrimSpace(id) == "" {
			continue
		}
		path := filepath.Join(filepath.Dir(trans), id+".flac")
		p, err := audio.ReadFile(path, audio.Limits{MaxFrames: 3600 * SampleRate})
		if err != nil {
			return nil, fmt.Errorf("librispeech: %s line %d: %w", trans, line, err)
		}
		if p.Rate != SampleRate || p.Channels != 1 || p.Bits != 16 {
			return nil, fmt.Errorf("librispeech: %s is %d Hz, %d channels, %d bits; LibriSpeech is 16 kHz mono 16-bit", path, p.Rate, p.Channels, p.Bits)
		}
		pcm := make([]int16, len(p.Data))
		for i, v := range p.Data {
			pcm[i] = int16(v)
		}
		utts = append(utts, Utterance{ID: id, Transcript: strings.ToLower(strings.TrimSpace(text)), PCM: pcm})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("librispeech: %s: %w", trans, err)
	}
	return utts, nil
}
