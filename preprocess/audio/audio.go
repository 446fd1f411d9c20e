// Package audio decodes the audio files of the speech benchmark: RIFF WAV
// (what the MLPerf Whisper reference's repacked LibriSpeech holds) and FLAC
// (what LibriSpeech ships), into integer PCM and into the float waveform
// librosa.load gives the reference (mlcommons/inference
// speech2text/QSL.py: librosa.load(path, sr=16000)).
//
// Conversions follow libsndfile, which librosa reads through: an n-bit
// integer sample s becomes the float32 s / 2^(n-1) (8-bit WAV is unsigned,
// (s − 128) / 128); several channels are averaged in float32, as
// librosa.to_mono's np.mean does. Resampling is not done: the reference's
// data set is 16 kHz throughout, and a file at another rate is refused
// with an error naming its rate, where librosa would resample it with soxr.
//
// FLAC decoding is github.com/mewkiz/flac (public domain), with every frame's
// CRC checked by the library and, here, the stream's sample count and MD5
// signature checked against the decoded samples, so a truncated or corrupt
// file is an error, never shorter audio.
//
// Every size read from a header is bounded before anything is allocated
// (see Limits). Functions are safe for concurrent use; results are owned
// by the caller.
package audio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Errors wrapped by this package's errors.
var (
	// ErrFormat reports a file that is not WAV or FLAC, or whose header or
	// data is malformed or truncated.
	ErrFormat = errors.New("audio: bad audio file")
	// ErrUnsupported reports a well-formed file in an encoding this package
	// does not decode (e.g. µ-law WAV).
	ErrUnsupported = errors.New("audio: unsupported audio encoding")
	// ErrTooLong reports audio longer than the caller's limit.
	ErrTooLong = errors.New("audio: audio too long")
	// ErrRate reports audio at a sample rate other than the one required.
	ErrRate = errors.New("audio: wrong sample rate")
)

// PCM is decoded integer audio, channels interleaved.
type PCM struct {
	Rate     int // samples per second per channel
	Channels int // 1 = mono
	Bits     int // bits per sample of the source (4..32)
	// Data holds Frames()×Channels signed samples, frame by frame (8-bit
	// WAV, stored unsigned, is centred to −128..127).
	Data []int32
	// Float marks 32-bit IEEE float WAV data: Data then holds the float32
	// bits of each sample (math.Float32frombits).
	Float bool
}

// Frames is the number of samples per channel.
func (p PCM) Frames() int {
	if p.Channels <= 0 {
		return 0
	}
	return len(p.Data) / p.Channels
}

// Seconds is the duration.
func (p PCM) Seconds() float64 {
	if p.Rate <= 0 {
		return 0
	}
	return float64(p.Frames()) / float64(p.Rate)
}

// Limits bound what a decoder accepts. Zero fields take the defaults.
type Limits struct {
	// MaxFrames is the most samples per channel (default DefaultMaxFrames).
	MaxFrames int
	// MaxChannels is the most channels (default 8).
	MaxChannels int
}

// DefaultMaxFrames bounds a file to one hour at 48 kHz.
const DefaultMaxFrames = 48000 * 3600

func (l Limits) withDefaults() Limits {
	if l.MaxFrames <= 0 {
		l.MaxFrames = DefaultMaxFrames
	}
	if l.MaxChannels <= 0 {
		l.MaxChannels = 8
	}
	return l
}

// Kind is a container format.
type Kind int

// Container formats, told apart by their first bytes.
const (
	Unknown Kind = iota
	WAV
	FLAC
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case WAV:
		return "WAV"
	case FLAC:
		return "FLAC"
	}
	return "unknown"
}

// Sniff tells the container from the first bytes of a file: "RIFF….WAVE"
// is WAV, "fLaC" (or an ID3v2 tag, which FLAC files may start with) is
// FLAC.
func Sniff(head []byte) Kind {
	switch {
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		return WAV
	case len(head) >= 4 && string(head[:4]) == "fLaC":
		return FLAC
	case len(head) >= 3 && string(head[:3]) == "ID3":
		return FLAC
	}
	return Unknown
}

// Decode reads a WAV or FLAC stream, told apart by its first bytes (not by
// a file name).
func Decode(r io.Reader, lim Limits) (PCM, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(12)
	if err != nil && len(head) < 4 {
		return PCM{}, fmt.Errorf("%w: %d bytes, too short for a WAV or FLAC header", ErrFormat, len(head))
	}
	switch Sniff(head) {
	case WAV:
		return DecodeWAV(br, lim)
	case FLAC:
		return DecodeFLAC(br, lim)
	}
	return PCM{}, fmt.Errorf("%w: starts with %q, neither RIFF/WAVE nor fLaC", ErrFormat, printable(head))
}

func printable(b []byte) string {
	b = bytes.Clone(b)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '.'
		}
	}
	return string(b)
}

// ReadFile decodes the WAV or FLAC file at path. Errors name the file.
func ReadFile(path string, lim Limits) (PCM, error) {
	f, err := os.Open(path)
	if err != nil {
		return PCM{}, fmt.Errorf("audio: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return PCM{}, fmt.Errorf("audio: %w", err)
	}
	if !st.Mode().IsRegular() {
		return PCM{}, fmt.Errorf("audio: %s is not a regular file", path)
	}
	p, err := Decode(f, lim)
	if err != nil {
		return PCM{}, fmt.Errorf("%w (in %s)", err, path)
	}
	return p, nil
}

// Float32 returns the samples of channel-interleaved p as float32 in
// [-1, 1), each divided by 2^(Bits-1) as libsndfile does, still
// interleaved.
func (p PCM) Float32() []float32 {
	out := make([]float32, len(p.Data))
	p.float32Into(out)
	return out
}

func (p PCM) float32Into(out []float32) {
	if p.Float {
		for i, v := range p.Data {
			out[i] = math.Float32frombits(uint32(v))
		}
		return
	}
	scale := float32(1) / float32(int64(1)<<(p.Bits-1))
	for i, v := range p.Data {
		// float32(v) is exact up to 24 bits; above, it rounds before the
		// power-of-two scaling, as libsndfile's (float) src * normfact.
		out[i] = float32(v) * scale
	}
}

// Mono returns the float32 waveform averaged over channels: for one
// channel the samples themselves, else the float32 mean of each frame's
// channels (librosa.to_mono: np.mean over the channel axis).
func (p PCM) Mono() []float32 {
	if p.Channels <= 1 {
		return p.Float32()
	}
	f := p.Float32()
	n := p.Frames()
	out := make([]float32, n)
	c := p.Channels
	for i := range n {
		var s float32
		for _, v := range f[i*c : i*c+c] {
			s += v
		}
		out[i] = s / float32(c)
	}
	return out
}

// Waveform is what the Whisper reference feeds its model: a 16 kHz mono
// float32 waveform of at most maxFrames samples.
type Waveform struct {
	Samples []float32
	// Channels of the file before the downmix.
	Channels int
}

// LoadConfig says what LoadWaveform accepts.
type LoadConfig struct {
	// Rate is the required sample rate (16000 for Whisper).
	Rate int
	// MaxFrames is the most samples the waveform may have (480000, 30 s,
	// for Whisper); 0 means Limits' default.
	MaxFrames int
	// Mono, when set, refuses files of several channels instead of
	// averaging them.
	Mono bool
}

// LoadWaveform reads path as librosa.load(path, sr=Rate) does for a file
// already at that rate: decoded, scaled to float32 and averaged to mono.
// A file at another rate is refused (ErrRate) rather than resampled; one
// longer than MaxFrames is refused (ErrTooLong). Errors name the file.
func LoadWaveform(path string, cfg LoadConfig) (Waveform, error) {
	p, err := ReadFile(path, Limits{MaxFrames: cfg.MaxFrames})
	if err != nil {
		return Waveform{}, err
	}
	if cfg.Rate > 0 && p.Rate != cfg.Rate {
		return Waveform{}, fmt.Errorf("%w: %s is %d Hz, want %d Hz (the reference's data set is 16 kHz; librosa would resample, this suite does not: convert the file, e.g. sox in.wav -r %d out.wav)",
			ErrRate, path, p.Rate, cfg.Rate, cfg.Rate)
	}
	if cfg.Mono && p.Channels != 1 {
		return Waveform{}, fmt.Errorf("%w: %s has %d channels, want mono", ErrUnsupported, path, p.Channels)
	}
	return Waveform{Samples: p.Mono(), Channels: p.Channels}, nil
}
