package audio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WAV format tags (WAVEFORMATEX wFormatTag).
const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveExtensible = 0xFFFE
)

// DecodeWAV reads a RIFF WAVE stream of integer PCM (8, 16, 24 or 32 bits)
// or 32-bit IEEE float, plain or WAVE_FORMAT_EXTENSIBLE. Chunks other than
// "fmt " and "data" are skipped. A data chunk shorter than its header says
// (a truncated file) or not a whole number of frames is an error, where
// libsndfile would read what is there.
func DecodeWAV(r io.Reader, lim Limits) (PCM, error) {
	lim = lim.withDefaults()
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return PCM{}, fmt.Errorf("%w: WAV header: %v", ErrFormat, unexpected(err))
	}
	if string(hdr[:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return PCM{}, fmt.Errorf("%w: not a RIFF WAVE file (starts with %q)", ErrFormat, printable(hdr[:]))
	}
	var (
		p       PCM
		haveFmt bool
		block   int
	)
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if err == io.EOF {
				return PCM{}, fmt.Errorf("%w: WAV file has no data chunk", ErrFormat)
			}
			return PCM{}, fmt.Errorf("%w: WAV chunk header: %v", ErrFormat, unexpected(err))
		}
		id := string(ch[:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:]))
		switch id {
		case "fmt ":
			if size < 16 || size > 1024 {
				return PCM{}, fmt.Errorf("%w: WAV fmt chunk of %d bytes (want 16 to 1024)", ErrFormat, size)
			}
			buf := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return PCM{}, fmt.Errorf("%w: WAV fmt chunk: %v", ErrFormat, unexpected(err))
			}
			var err error
			if p, block, err = parseFmt(buf[:size], lim); err != nil {
				return PCM{}, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return PCM{}, fmt.Errorf("%w: WAV data chunk before the fmt chunk", ErrFormat)
			}
			if size%int64(block) != 0 {
				return PCM{}, fmt.Errorf("%w: WAV data chunk of %d bytes is not a whole number of %d-byte frames", ErrFormat, size, block)
			}
			frames := size / int64(block)
			if frames > int64(lim.MaxFrames) {
				return PCM{}, fmt.Errorf("%w: WAV data holds %d frames (%.1f s at %d Hz), more than the limit of %d",
					ErrTooLong, frames, float64(frames)/float64(p.Rate), p.Rate, lim.MaxFrames)
			}
			data, err := readSamples(r, int(frames)*p.Channels, block/p.Channels)
			if err != nil {
				return PCM{}, fmt.Errorf("%w: WAV data chunk says %d bytes: %v (truncated file?)", ErrFormat, size, unexpected(err))
			}
			p.Data = data
			return p, nil
		default:
			if _, err := io.CopyN(io.Discard, r, size+size%2); err != nil {
				return PCM{}, fmt.Errorf("%w: WAV %q chunk: %v", ErrFormat, id, unexpected(err))
			}
		}
	}
}

// parseFmt reads a WAVEFORMATEX (or EXTENSIBLE) and returns the stream's
// description and its frame size in bytes.
func parseFmt(b []byte, lim Limits) (PCM, int, error) {
	le := binary.LittleEndian
	tag := le.Uint16(b[0:])
	channels := int(le.Uint16(b[2:]))
	rate := int(le.Uint32(b[4:]))
	block := int(le.Uint16(b[12:]))
	bits := int(le.Uint16(b[14:]))
	if tag == waveExtensible {
		if len(b) < 40 {
			return PCM{}, 0, fmt.Errorf("%w: WAVE_FORMAT_EXTENSIBLE fmt chunk of %d bytes (want 40)", ErrFormat, len(b))
		}
		// The sub-format GUID starts with the format tag it extends.
		tag = le.Uint16(b[24:])
	}
	if channels < 1 || channels > lim.MaxChannels {
		return PCM{}, 0, fmt.Errorf("%w: WAV has %d channels (want 1 to %d)", ErrFormat, channels, lim.MaxChannels)
	}
	if rate < 1 || rate > 1<<20 {
		return PCM{}, 0, fmt.Errorf("%w: WAV sample rate %d Hz", ErrFormat, rate)
	}
	p := PCM{Rate: rate, Channels: channels, Bits: bits}
	switch tag {
	case wavePCM:
		if bits != 8 && bits != 16 && bits != 24 && bits != 32 {
			return PCM{}, 0, fmt.Errorf("%w: %d-bit integer WAV (want 8, 16, 24 or 32)", ErrUnsupported, bits)
		}
	case waveFloat:
		if bits != 32 {
			return PCM{}, 0, fmt.Errorf("%w: %d-bit float WAV (want 32)", ErrUnsupported, bits)
		}
		p.Float = true
	default:
		return PCM{}, 0, fmt.Errorf("%w: WAV format tag 0x%04x (want integer PCM 0x0001 or float 0x0003)", ErrUnsupported, tag)
	}
	if block != channels*bits/8 {
		return PCM{}, 0, fmt.Errorf("%w: WAV block align %d, want %d for %d channels of %d bits", ErrFormat, block, channels*bits/8, channels, bits)
	}
	return p, block, nil
}

// readSamples reads n little-endian samples of width bytes each, sign
// extended (8-bit samples, unsigned in WAV, are centred: s − 128; 32-bit
// float samples keep their bits).
func readSamples(r io.Reader, n, width int) ([]int32, error) {
	out := make([]int32, n)
	buf := make([]byte, width*4096)
	i := 0
	for i < n {
		m := min(len(buf)/width, n-i)
		if _, err := io.ReadFull(r, buf[:m*width]); err != nil {
			return nil, err
		}
		b := buf[:m*width]
		switch width {
		case 1: // unsigned, centred on 128
			for j := range m {
				out[i+j] = int32(b[j]) - 128
			}
		case 2:
			for j := range m {
				out[i+j] = int32(int16(binary.LittleEndian.Uint16(b[2*j:])))
			}
		case 3:
			for j := range m {
				out[i+j] = int32(uint32(b[3*j])<<8|uint32(b[3*j+1])<<16|uint32(b[3*j+2])<<24) >> 8
			}
		case 4:
			for j := range m {
				out[i+j] = int32(binary.LittleEndian.Uint32(b[4*j:]))
			}
		}
		i += m
	}
	return out, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// WriteWAV16 writes mono or interleaved 16-bit PCM as a RIFF WAVE file
// with the canonical 44-byte header (a 16-byte PCM fmt chunk, then data),
// the format of the reference's repacked clips (soundfile's PCM_16).
func WriteWAV16(w io.Writer, rate, channels int, samples []int16) error {
	if channels < 1 || len(samples)%channels != 0 {
		return fmt.Errorf("audio: %d samples are not whole frames of %d channels", len(samples), channels)
	}
	data := int64(len(samples)) * 2
	if data+36 > math.MaxUint32 {
		return fmt.Errorf("audio: %d samples exceed the 4 GiB WAV limit", len(samples))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	le := binary.LittleEndian
	var h [44]byte
	copy(h[0:], "RIFF")
	le.PutUint32(h[4:], uint32(36+data))
	copy(h[8:], "WAVEfmt ")
	le.PutUint32(h[16:], 16)
	le.PutUint16(h[20:], wavePCM)
	le.PutUint16(h[22:], uint16(channels))
	le.PutUint32(h[24:], uint32(rate))
	le.PutUint32(h[28:], uint32(rate*channels*2))
	le.PutUint16(h[32:], uint16(channels*2))
	le.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	le.PutUint32(h[40:], uint32(data))
	if _, err := bw.Write(h[:]); err != nil {
		return fmt.Errorf("audio: write WAV: %w", err)
	}
	var b [2]byte
	for _, s := range samples {
		le.PutUint16(b[:], uint16(s))
		if _, err := bw.Write(b[:]); err != nil {
			return fmt.Errorf("audio: write WAV: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("audio: write WAV: %w", err)
	}
	return nil
}
