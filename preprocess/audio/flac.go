package audio

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
)

// DecodeFLAC reads a FLAC stream with github.com/mewkiz/flac, which checks
// every frame's CRC-8 and CRC-16. Beyond the library, every frame must
// agree with the STREAMINFO block (rate, channels, bits), the decoded
// sample count must equal the STREAMINFO's (when it is known) and the MD5
// of the decoded samples must equal its signature (when it is not zero):
// a truncated or damaged file is an error.
func DecodeFLAC(r io.Reader, lim Limits) (PCM, error) {
	lim = lim.withDefaults()
	st, err := flac.New(r)
	if err != nil {
		return PCM{}, fmt.Errorf("%w: FLAC header: %v", ErrFormat, unexpected(err))
	}
	info := st.Info
	if info == nil {
		return PCM{}, fmt.Errorf("%w: FLAC stream has no STREAMINFO block", ErrFormat)
	}
	p := PCM{Rate: int(info.SampleRate), Channels: int(info.NChannels), Bits: int(info.BitsPerSample)}
	if p.Channels < 1 || p.Channels > lim.MaxChannels {
		return PCM{}, fmt.Errorf("%w: FLAC has %d channels (want 1 to %d)", ErrFormat, p.Channels, lim.MaxChannels)
	}
	if p.Rate < 1 || p.Bits < 4 || p.Bits > 32 {
		return PCM{}, fmt.Errorf("%w: FLAC STREAMINFO says %d Hz, %d bits", ErrFormat, p.Rate, p.Bits)
	}
	if info.NSamples > uint64(lim.MaxFrames) {
		return PCM{}, fmt.Errorf("%w: FLAC holds %d frames (%.1f s at %d Hz), more than the limit of %d",
			ErrTooLong, info.NSamples, float64(info.NSamples)/float64(p.Rate), p.Rate, lim.MaxFrames)
	}
	p.Data = make([]int32, 0, int(info.NSamples)*p.Channels)
	sum := md5.New()
	var buf []byte
	width := (p.Bits + 7) / 8
	for n := 0; ; n++ {
		f, err := st.ParseNext()
		if err == io.EOF {
			break
		}
		if err != nil {
			return PCM{}, fmt.Errorf("%w: FLAC frame %d (after %d samples): %v (truncated or damaged file?)", ErrFormat, n, p.Frames(), unexpected(err))
		}
		if len(f.Subframes) != p.Channels || (f.SampleRate != 0 && int(f.SampleRate) != p.Rate) || (f.BitsPerSample != 0 && int(f.BitsPerSample) != p.Bits) {
			return PCM{}, fmt.Errorf("%w: FLAC frame %d has %d channels, %d Hz, %d bits; the stream says %d, %d Hz, %d bits",
				ErrFormat, n, len(f.Subframes), f.SampleRate, f.BitsPerSample, p.Channels, p.Rate, p.Bits)
		}
		bs := len(f.Subframes[0].Samples)
		if p.Frames()+bs > lim.MaxFrames {
			return PCM{}, fmt.Errorf("%w: FLAC holds more than the limit of %d frames", ErrTooLong, lim.MaxFrames)
		}
		buf = buf[:0]
		for i := range bs {
			for _, sf := range f.Subframes {
				if len(sf.Samples) != bs {
					return PCM{}, fmt.Errorf("%w: FLAC frame %d has subframes of different lengths", ErrFormat, n)
				}
				v := sf.Samples[i]
				p.Data = append(p.Data, v)
				for b := range width {
					buf = append(buf, byte(v>>(8*b)))
				}
			}
		}
		sum.Write(buf)
	}
	if info.NSamples != 0 && uint64(p.Frames()) != info.NSamples {
		return PCM{}, fmt.Errorf("%w: FLAC decoded %d samples, STREAMINFO says %d (truncated file?)", ErrFormat, p.Frames(), info.NSamples)
	}
	var zero [md5.Size]byte
	if info.MD5sum != zero {
		if got := sum.Sum(nil); !bytes.Equal(got, info.MD5sum[:]) {
			return PCM{}, fmt.Errorf("%w: FLAC audio MD5 %x, STREAMINFO says %x (damaged file)", ErrFormat, got, info.MD5sum)
		}
	}
	return p, nil
}
