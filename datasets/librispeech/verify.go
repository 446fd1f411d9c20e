package librispeech

import (
	"fmt"
	"strings"

	"github.com/mlperf-go/inference/preprocess/audio"
)

// Report is what Verify finds in a data set.
type Report struct {
	Samples int
	// Dropped counts the manifest entries the reference drops (over 30 s
	// or without a string transcript).
	Dropped int
	// Hours kept and dropped.
	Hours, DroppedHours float64
	// Longest is the longest clip in seconds.
	Longest float64
	// Official: 1,633 samples and no problems, as the MLCommons data set.
	Official bool
	// Problems lists what breaks the reference's invariants (at most 20,
	// then a count).
	Problems []string
}

// String is a short human-readable summary, in the words QSL.py prints.
func (r Report) String() string {
	s := fmt.Sprintf("Dataset loaded with %.2f hours. Filtered %.2f hours. Number of samples: %d (longest clip %.2f s)",
		r.Hours, r.DroppedHours, r.Samples, r.Longest)
	if r.Official {
		s += "; the shape of the official data set"
	}
	return s
}

// Verify decodes every sample's audio and checks what the reference
// relies on: a 16 kHz mono 16-bit file, at most 30 s, with the sample
// count its manifest entry states, and a transcript with at least one
// word over the scorer's alphabet. It returns an error only when
// nothing can be checked.
func Verify(d *Dataset) (Report, error) {
	r := Report{Samples: d.Len(), Dropped: d.Dropped, Hours: d.Duration / 3600, DroppedHours: d.FilteredDuration / 3600}
	var more int
	problem := func(format string, args ...any) {
		if len(r.Problems) < 20 {
			r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
		} else {
			more++
		}
	}
	for i, s := range d.Samples {
		r.Longest = max(r.Longest, s.Duration)
		p, err := audio.ReadFile(s.Audio, audio.Limits{MaxFrames: MaxSamples})
		if err != nil {
			problem("sample %d: %v", i, err)
			continue
		}
		switch {
		case p.Rate != SampleRate:
			problem("sample %d: %s is %d Hz, want 16000", i, s.Audio, p.Rate)
		case p.Channels != 1:
			problem("sample %d: %s has %d channels, want mono", i, s.Audio, p.Channels)
		case p.Bits != 16 || p.Float:
			problem("sample %d: %s is %d-bit, want 16-bit PCM", i, s.Audio, p.Bits)
		case int64(p.Frames()) != s.NumSamples:
			problem("sample %d: %s has %d samples, its manifest entry says %d", i, s.Audio, p.Frames(), s.NumSamples)
		}
		if strings.TrimSpace(s.Reference) == "" {
			problem("sample %d: transcript %q has no word over the scorer's alphabet", i, s.Transcript)
		}
	}
	if more > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("… and %d more", more))
	}
	r.Official = r.Samples == OfficialSamples && len(r.Problems) == 0
	return r, nil
}
