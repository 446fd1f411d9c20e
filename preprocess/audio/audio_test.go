package audio

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// golden is testdata/golden.json, written by gen_golden.py from libsndfile
// (soundfile) and numpy: what librosa.load gives the reference per file.
type golden struct {
	Rate         int       `json:"rate"`
	Channels     int       `json:"channels"`
	Frames       int       `json:"frames"`
	MonoSHA256   string    `json:"mono_sha256"`
	FirstNonzero int       `json:"first_nonzero"`
	Values       []float64 `json:"values"`
}

func readGolden(t *testing.T) map[string]golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func sha(f []float32) string {
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestDecodeMatchesLibsndfile decodes every fixture (16-bit, 8-bit
// unsigned, 32-bit float WAV with a fact chunk; FLAC at levels 0, 5, 8,
// 24-bit, stereo, 8 kHz) to libsndfile's float32 mono waveform, bit for bit.
func TestDecodeMatchesLibsndfile(t *testing.T) {
	g := readGolden(t)
	if len(g) < 10 {
		t.Fatalf("golden.json has %d files", len(g))
	}
	for name, want := range g {
		t.Run(name, func(t *testing.T) {
			p, err := ReadFile(filepath.Join("testdata", name), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Rate != want.Rate || p.Channels != want.Channels || p.Frames() != want.Frames {
				t.Fatalf("%d Hz × %d channels × %d frames, libsndfile %d × %d × %d", p.Rate, p.Channels, p.Frames(), want.Rate, want.Channels, want.Frames)
			}
			m := p.Mono()
			if got := sha(m); got != want.MonoSHA256 {
				nz := slices.IndexFunc(m, func(v float32) bool { return v != 0 })
				t.Errorf("mono waveform sha256 %s, libsndfile %s (first nonzero at %d, want %d; values %v, want %v)",
					got, want.MonoSHA256, nz, want.FirstNonzero, m[max(nz, 0):max(nz, 0)+6], want.Values)
			}
		})
	}
}

// TestFLACEqualsDebianFlacDecode: FLAC is lossless, and make_testdata.sh
// checks that Debian's flac -d gives back speech.wav; the Go decoder must
// give the same integers at every compression level.
func TestFLACEqualsDebianFlacDecode(t *testing.T) {
	ref, err := ReadFile("testdata/speech.wav", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"speech-0.flac", "speech-8.flac"} {
		p, err := ReadFile(filepath.Join("testdata", f), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Bits != 16 || !slices.Equal(p.Data, ref.Data) {
			t.Errorf("%s: %d bits, samples equal %v; want speech.wav's 16-bit samples", f, p.Bits, slices.Equal(p.Data, ref.Data))
		}
	}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTruncatedFLACIsAnError cuts the file inside a frame and at the end
// of the metadata; both are errors naming the problem, never shorter audio.
func TestTruncatedFLACIsAnError(t *testing.T) {
	b := fixture(t, "speech-8.flac")
	for _, n := range []int{len(b) - 1, len(b) / 2, 42, 3} {
		_, err := Decode(bytes.NewReader(b[:n]), Limits{})
		if !errors.Is(err, ErrFormat) {
			t.Errorf("cut at %d of %d bytes: error %v, want ErrFormat", n, len(b), err)
		}
	}
}

// TestDamagedFLACIsAnError flips one bit in the audio: the frame CRC or the
// stream MD5 catches it.
func TestDamagedFLACIsAnError(t *testing.T) {
	b := bytes.Clone(fixture(t, "speech-8.flac"))
	b[len(b)-200] ^= 0x10
	if _, err := Decode(bytes.NewReader(b), Limits{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("error %v, want ErrFormat", err)
	}
}

// TestFLACMissingTailFrameIsAnError removes whole frames at the end: every
// frame left is valid, but the sample count falls short of STREAMINFO's.
func TestFLACMissingTailFrameIsAnError(t *testing.T) {
	b := fixture(t, "speech-0.flac")
	// Find the last frame's sync code (0xFFF8) and cut there.
	cut := bytes.LastIndex(b, []byte{0xFF, 0xF8})
	if cut < 100 {
		t.Fatal("no frame sync found")
	}
	_, err := Decode(bytes.NewReader(b[:cut]), Limits{})
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "STREAMINFO says 16000") {
		t.Fatalf("error %v, want a sample-count mismatch", err)
	}
}

// TestTruncatedWAVIsAnError: a data chunk shorter than its header says.
func TestTruncatedWAVIsAnError(t *testing.T) {
	b := fixture(t, "speech.wav")
	for _, n := range []int{len(b) - 2, 44, 40, 20, 11} {
		_, err := Decode(bytes.NewReader(b[:n]), Limits{})
		if !errors.Is(err, ErrFormat) {
			t.Errorf("cut at %d: error %v, want ErrFormat", n, err)
		}
	}
	if _, err := Decode(bytes.NewReader(b[:len(b)-1]), Limits{}); err == nil || !strings.Contains(err.Error(), "whole number") && !strings.Contains(err.Error(), "truncated") {
		t.Errorf("odd cut: %v", err)
	}
}

func wav16(t *testing.T, rate, channels, frames int) []byte {
	t.Helper()
	s := make([]int16, frames*channels)
	for i := range s {
		s[i] = int16(i%200 - 100)
	}
	var buf bytes.Buffer
	if err := WriteWAV16(&buf, rate, channels, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriteWAV16RoundTrips: what WriteWAV16 writes, DecodeWAV reads back,
// and libsndfile's header layout (44 bytes) is kept.
func TestWriteWAV16RoundTrips(t *testing.T) {
	ref, err := ReadFile("testdata/speech.wav", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := make([]int16, len(ref.Data))
	for i, v := range ref.Data {
		s[i] = int16(v)
	}
	var buf bytes.Buffer
	if err := WriteWAV16(&buf, 16000, 1, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), fixture(t, "speech.wav")) {
		t.Error("WriteWAV16 of speech.wav's samples differs from sox's file")
	}
	if err := WriteWAV16(&buf, 16000, 2, s[:3]); err == nil {
		t.Error("3 samples as stereo frames accepted")
	}
}

// TestLimitsBoundBeforeAllocating: a header announcing more frames than
// the limit is refused with ErrTooLong, for WAV and FLAC, just above the
// bound, and accepted at the bound.
func TestLimitsBoundBeforeAllocating(t *testing.T) {
	b := wav16(t, 16000, 1, 1000)
	if _, err := Decode(bytes.NewReader(b), Limits{MaxFrames: 999}); !errors.Is(err, ErrTooLong) {
		t.Errorf("WAV 1000 frames, limit 999: %v", err)
	}
	if p, err := Decode(bytes.NewReader(b), Limits{MaxFrames: 1000}); err != nil || p.Frames() != 1000 {
		t.Errorf("WAV 1000 frames, limit 1000: %v", err)
	}
	f := fixture(t, "speech-8.flac")
	if _, err := Decode(bytes.NewReader(f), Limits{MaxFrames: 15999}); !errors.Is(err, ErrTooLong) {
		t.Errorf("FLAC 16000 frames, limit 15999: %v", err)
	}
	if _, err := Decode(bytes.NewReader(f), Limits{MaxFrames: 16000}); err != nil {
		t.Errorf("FLAC 16000 frames, limit 16000: %v", err)
	}
	// A hostile header: 4 GiB of data announced in a 44-byte file.
	h := bytes.Clone(b[:44])
	binary.LittleEndian.PutUint32(h[40:], 0xFFFFFFFE)
	if _, err := Decode(bytes.NewReader(h), Limits{}); !errors.Is(err, ErrTooLong) {
		t.Errorf("4 GiB data chunk: %v", err)
	}
}

// TestNotAudioIsAClearError: other formats and empty input are named.
func TestNotAudioIsAClearError(t *testing.T) {
	for _, in := range []string{"", "ID", "OggS\x00\x02 not audio", "RIFF\x00\x00\x00\x00AVI LIST", "\xff\xfb\x90\x00 mp3 frame"} {
		_, err := Decode(strings.NewReader(in), Limits{})
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v, want ErrFormat", in, err)
		}
	}
	// µ-law WAV: well formed, not decoded.
	b := bytes.Clone(wav16(t, 8000, 1, 10))
	binary.LittleEndian.PutUint16(b[20:], 7)
	if _, err := Decode(bytes.NewReader(b), Limits{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("µ-law: %v, want ErrUnsupported", err)
	}
}

// TestLoadWaveform16kMono: the reference's load of a 16 kHz file; the
// 8 kHz file is refused naming its rate (librosa would resample); stereo
// is averaged as librosa.to_mono (or refused when Mono is asked); a file
// longer than MaxFrames is refused.
func TestLoadWaveform16kMono(t *testing.T) {
	g := readGolden(t)
	w, err := LoadWaveform("testdata/speech-8.flac", LoadConfig{Rate: 16000, MaxFrames: 480000})
	if err != nil || sha(w.Samples) != g["speech-8.flac"].MonoSHA256 {
		t.Fatalf("speech-8.flac: %v", err)
	}
	_, err = LoadWaveform("testdata/speech8k.wav", LoadConfig{Rate: 16000})
	if !errors.Is(err, ErrRate) || !strings.Contains(err.Error(), "8000 Hz") || !strings.Contains(err.Error(), "speech8k.wav") {
		t.Errorf("8 kHz: %v", err)
	}
	w, err = LoadWaveform("testdata/stereo.flac", LoadConfig{Rate: 16000})
	if err != nil || w.Channels != 2 || sha(w.Samples) != g["stereo.flac"].MonoSHA256 {
		t.Errorf("stereo: %v (channels %d)", err, w.Channels)
	}
	if _, err := LoadWaveform("testdata/stereo.flac", LoadConfig{Rate: 16000, Mono: true}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("stereo with Mono: %v", err)
	}
	if _, err := LoadWaveform("testdata/speech.wav", LoadConfig{Rate: 16000, MaxFrames: 15999}); !errors.Is(err, ErrTooLong) {
		t.Errorf("1 s file, 15999-frame limit: %v", err)
	}
	if _, err := LoadWaveform("testdata", LoadConfig{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: %v", err)
	}
	if _, err := LoadWaveform("testdata/missing.wav", LoadConfig{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Kind{
		"RIFF\x24\x00\x00\x00WAVEfmt ": WAV,
		"fLaC\x00\x00\x00\x22":         FLAC,
		"ID3\x04\x00":                  FLAC,
		"RIFF\x24\x00\x00\x00AVI ":     Unknown,
		"fLa":                          Unknown,
	} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, n := range []string{"speech-8.flac", "speech.wav", "speech-f32.wav"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 600)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(bytes.NewReader(b), Limits{MaxFrames: 1 << 16})
		if err == nil && (p.Channels < 1 || len(p.Data)%p.Channels != 0 || p.Frames() > 1<<16) {
			t.Fatalf("accepted %d samples of %d channels", len(p.Data), p.Channels)
		}
	})
}
