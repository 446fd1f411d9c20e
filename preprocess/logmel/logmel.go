// Package logmel computes Whisper's log-Mel spectrogram, the encoder's
// input_features, as openai/whisper whisper/audio.py does it:
//
//	audio = pad_or_trim(audio)                    // 480,000 samples, 30 s at 16 kHz
//	stft  = torch.stft(audio, 400, 160, hann_window(400), center=True, reflect padding)
//	power = |stft[..., :-1]|²                     // 201 bins × 3,000 frames (the last frame dropped)
//	mel   = filters @ power                       // librosa's Slaney Mel filter bank
//	log   = log10(max(mel, 1e-10))
//	log   = max(log, log.max() − 8)
//	out   = (log + 4) / 4                         // [n_mels, 3000]
//
// Hugging Face's WhisperFeatureExtractor, which vLLM runs for the MLPerf
// reference, computes the same (padding to 30 s first, dropping the last
// frame). The filter bank is librosa.filters.mel(sr=16000, n_fft=400,
// n_mels, norm="slaney"), computed here as librosa does (float64, rounded
// to float32, then scaled by the Slaney norm and rounded again, as its
// float32 in-place multiply does); it equals whisper's mel_filters.npz to
// within one float32 rounding.
//
// The transform runs in float64 (the real FFT of gonum's dsp/fourier on
// the windowed frames, Mel sums over each filter's non-zero bins only) and
// rounds to float32 at the end, so it agrees with PyTorch's float32
// computation to within PyTorch's own float32 rounding. Frames made only
// of padding are not transformed: their spectrum is zero.
package logmel

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Whisper's audio hyperparameters (whisper/audio.py).
const (
	SampleRate = 16000
	NFFT       = 400
	Hop        = 160
	// NSamples is 30 s of audio, what the encoder sees.
	NSamples = 30 * SampleRate
	// NFrames is the number of spectrogram frames of 30 s.
	NFrames = NSamples / Hop
	// Bins is the number of one-sided FFT bins.
	Bins = NFFT/2 + 1
)

// Extractor computes log-Mel spectrograms with n Mel bins. It is safe for
// concurrent use; each call uses its own scratch buffers from a pool.
type Extractor struct {
	mels    int
	filters []filter
	window  [NFFT]float64
	pool    sync.Pool
}

// filter is one Mel filter's non-zero weights, bins lo..lo+len(w)-1.
type filter struct {
	lo int
	w  []float64
}

type scratch struct {
	fft    *fourier.FFT
	frame  []float64
	coef   []complex128
	power  []float64
	padded []float64
}

// New returns an extractor with n Mel bins: 128 for large-v3, 80 for the
// earlier Whisper models.
func New(n int) (*Extractor, error) {
	if n != 80 && n != 128 {
		return nil, fmt.Errorf("logmel: %d Mel bins, Whisper uses 80 or 128", n)
	}
	e := &Extractor{mels: n}
	fb := Filters(n)
	for m := range n {
		row := fb[m*Bins : (m+1)*Bins]
		lo, hi := Bins, 0
		for k, v := range row {
			if v != 0 {
				lo, hi = min(lo, k), max(hi, k+1)
			}
		}
		f := filter{lo: min(lo, hi)}
		for _, v := range row[f.lo:hi] {
			f.w = append(f.w, float64(v))
		}
		e.filters = append(e.filters, f)
	}
	// torch.hann_window(400), periodic: 0.5 − 0.5·cos(2πn/400), in float32.
	for i := range NFFT {
		e.window[i] = float64(float32(0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/NFFT)))
	}
	e.pool.New = func() any {
		return &scratch{
			fft:    fourier.NewFFT(NFFT),
			frame:  make([]float64, NFFT),
			coef:   make([]complex128, Bins),
			power:  make([]float64, Bins),
			padded: make([]float64, NSamples+NFFT),
		}
	}
	return e, nil
}

// Mels is the number of Mel bins.
func (e *Extractor) Mels() int { return e.mels }

// Size is the number of values of one spectrogram: Mels × NFrames.
func (e *Extractor) Size() int { return e.mels * NFrames }

// Compute writes the log-Mel spectrogram of audio (16 kHz mono float32,
// padded with zeros or trimmed to 30 s) to dst, row-major [Mels, NFrames];
// len(dst) must be Size(). Compute returns an error only for a wrong dst
// length or a non-finite sample.
func (e *Extractor) Compute(dst []float32, audio []float32) error {
	if len(dst) != e.Size() {
		return fmt.Errorf("logmel: destination holds %d values, want %d × %d", len(dst), e.mels, NFrames)
	}
	s := e.pool.Get().(*scratch)
	defer e.pool.Put(s)

	// The signal padded to 30 s, then reflect-padded by NFFT/2 on each side
	// (torch.stft center=True, pad_mode="reflect").
	n := min(len(audio), NSamples)
	const half = NFFT / 2
	x := s.padded[half : half+NSamples]
	last := -1 // the last non-zero sample of x
	for i, v := range audio[:n] {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("logmel: sample %d is %v", i, v)
		}
		x[i] = float64(v)
		if v != 0 {
			last = i
		}
	}
	clear(x[n:])
	for i := 1; i <= half; i++ {
		s.padded[half-i] = x[i]
		s.padded[half+NSamples-1+i] = x[NSamples-1-i]
	}
	// Frames t cover padded[t·Hop, t·Hop+NFFT); past the last non-zero
	// sample (and its reflection) they are silent.
	lastPadded := half + last
	if last >= NSamples-1-half {
		lastPadded = len(s.padded) - 1
	}

	maxLog := math.Inf(-1)
	floorLog := math.Log10(1e-10)
	for t := range NFrames {
		start := t * Hop
		if start > lastPadded {
			for m := range e.mels {
				dst[m*NFrames+t] = float32(floorLog)
			}
			maxLog = max(maxLog, floorLog)
			continue
		}
		for i, w := range e.window {
			s.frame[i] = s.padded[start+i] * w
		}
		s.fft.Coefficients(s.coef, s.frame)
		for k, c := range s.coef {
			re, im := real(c), imag(c)
			s.power[k] = re*re + im*im
		}
		for m, f := range e.filters {
			var sum float64
			for j, w := range f.w {
				sum += w * s.power[f.lo+j]
			}
			v := math.Log10(max(sum, 1e-10))
			maxLog = max(maxLog, v)
			dst[m*NFrames+t] = float32(v)
		}
	}
	// torch: log_spec.max() − 8.0 and (x + 4) / 4 in float32
	floor := float32(maxLog) - 8
	for i, v := range dst {
		dst[i] = (max(v, floor) + 4) / 4
	}
	return nil
}

// Filters returns librosa.filters.mel(sr=16000, n_fft=400, n_mels=n,
// fmin=0, fmax=8000, htk=False, norm="slaney", dtype=float32) as a
// row-major [n, 201] matrix.
func Filters(n int) []float32 {
	// fft_frequencies: np.fft.rfftfreq(400, 1/16000)
	d := 1.0 / SampleRate
	val := 1.0 / (NFFT * d)
	fft := make([]float64, Bins)
	for i := range fft {
		fft[i] = float64(i) * val
	}
	// mel_frequencies(n+2, 0, 8000): np.linspace over the Slaney Mel scale
	minMel, maxMel := hzToMel(0), hzToMel(SampleRate/2)
	mf := make([]float64, n+2)
	step := (maxMel - minMel) / float64(n+1)
	for i := range mf {
		mf[i] = melToHz(float64(i)*step + minMel)
	}
	mf[n+1] = melToHz(maxMel)
	out := make([]float32, n*Bins)
	for i := range n {
		lowDiff, upDiff := mf[i+1]-mf[i], mf[i+2]-mf[i+1]
		enorm := 2.0 / (mf[i+2] - mf[i])
		for k, f := range fft {
			lower := -(mf[i] - f) / lowDiff
			upper := (mf[i+2] - f) / upDiff
			w := float32(max(0, min(lower, upper)))
			out[i*Bins+k] = float32(float64(w) * enorm)
		}
	}
	return out
}

// The Slaney Mel scale (librosa hz_to_mel / mel_to_hz, htk=False): linear
// below 1 kHz (200/3 Hz per Mel), logarithmic above.
const (
	fSp       = 200.0 / 3
	minLogHz  = 1000.0
	minLogMel = minLogHz / fSp
)

var logStep = math.Log(6.4) / 27

func hzToMel(f float64) float64 {
	if f >= minLogHz {
		return minLogMel + math.Log(f/minLogHz)/logStep
	}
	return f / fSp
}

func melToHz(m float64) float64 {
	if m >= minLogMel {
		return minLogHz * math.Exp(logStep*(m-minLogMel))
	}
	return fSp * m
}
