package librispeech

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"

	"github.com/mlperf-go/inference/preprocess/audio"
)

// clipFS holds the synthetic data set's speech: espeak-ng sentences in
// LibriSpeech's format (16 kHz mono 16-bit FLAC, speaker-chapter-n ids,
// clips.txt as a *.trans.txt), written by clips/make_clips.sh.
//
//go:embed clips/*.flac clips/clips.txt
var clipFS embed.FS

// Clips returns the embedded utterances, transcripts in lower case.
func Clips() ([]Utterance, error) {
	t, err := clipFS.ReadFile("clips/clips.txt")
	if err != nil {
		return nil, fmt.Errorf("librispeech: embedded clips: %w", err)
	}
	var utts []Utterance
	sc := bufio.NewScanner(bytes.NewReader(t))
	for sc.Scan() {
		id, text, _ := strings.Cut(sc.Text(), " ")
		b, err := clipFS.ReadFile(path.Join("clips", id+".flac"))
		if err != nil {
			return nil, fmt.Errorf("librispeech: embedded clip %s: %w", id, err)
		}
		p, err := audio.Decode(bytes.NewReader(b), audio.Limits{})
		if err != nil {
			return nil, fmt.Errorf("librispeech: embedded clip %s: %w", id, err)
		}
		pcm := make([]int16, len(p.Data))
		for i, v := range p.Data {
			pcm[i] = int16(v)
		}
		utts = append(utts, Utterance{ID: id, Transcript: strings.ToLower(text), PCM: pcm})
	}
	return utts, nil
}

// SynthConfig sizes a synthetic data set.
type SynthConfig struct {
	// Samples is the number of repacked clips (at least 1).
	Samples int
	// Seed fixes the content: the same config gives the same bytes.
	Seed uint64
}

// SmallSynth is the default synthetic data set: 6 clips, one packed to
// nearly 30 s.
var SmallSynth = SynthConfig{Samples: 6, Seed: 20250901}

// Synth writes a data set in the reference's repacked layout under out
// (dev-all-repack.json and dev-all-repack/*.wav): clip i is chapter
// "<1000+i>-<2000+i>" of seeded espeak-ng utterances packed by the
// reference's rule (Pack); every third clip is filled until the next
// utterance would pass 30 s, the others hold one to three utterances.
func Synth(out string, cfg SynthConfig) error {
	if cfg.Samples < 1 || cfg.Samples > 100000 {
		return fmt.Errorf("librispeech: synth of %d samples (want 1 to 100000)", cfg.Samples)
	}
	utts, err := Clips()
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x11b7a5))
	w, err := NewWriter(out)
	if err != nil {
		return err
	}
	for i := range cfg.Samples {
		key := fmt.Sprintf("%d-%d", 1000+i, 2000+i)
		var chap []Utterance
		dur := 0.0
		for n := 0; ; n++ {
			u := utts[r.IntN(len(utts))]
			d := float64(len(u.PCM)) / SampleRate
			if n > 0 && (i%3 != 0 && n > i%3 || dur+PadDuration+d > MaxDuration) {
				break
			}
			u.ID = fmt.Sprintf("%s-%04d", key, n)
			chap = append(chap, u)
			dur += d + PadDuration
		}
		clips := Pack(key, chap)
		if len(clips) != 1 {
			return fmt.Errorf("librispeech: synth chapter %s packed into %d clips", key, len(clips))
		}
		if err := w.Add(clips[0]); err != nil {
			return err
		}
	}
	return w.Close()
}
