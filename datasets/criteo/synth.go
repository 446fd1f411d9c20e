package criteo

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlperf-go/inference/preprocess"
)

// SynthRows is the default number of rows Synth writes: its first half
// makes 40 aggregated samples with the reference's quantile and seed.
const SynthRows = 20000

// SynthConfig sizes a synthetic data set.
type SynthConfig struct {
	Rows int    // rows of the day (SynthRows when < 1)
	Seed uint64 // values' seed
}

// Synth writes a synthetic day 23 into dir in the real formats: dense
// float32 [Rows, 13] with values in the range of ln(x+3) of the
// preprocessed data, labels int32 [Rows, 1] (about one click in four),
// and an uncompressed npz of int32 [Rows, MultiHot[k]] ids drawn
// uniformly from each feature's TableRows range. Same config, same bytes.
func Synth(dir string, cfg SynthConfig) error {
	n := cfg.Rows
	if n < 1 {
		n = SynthRows
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("criteo: synth: %w", err)
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x64726c6d))
	dense := make([]byte, 0, n*NumDense*4)
	labels := make([]byte, 0, n*4)
	for range n {
		s := float32(0)
		for range NumDense {
			v := float32(math.Log(3 + math.Floor(r.ExpFloat64()*float64(r.IntN(400)+1))))
			s += v
			dense = binary.LittleEndian.AppendUint32(dense, math.Float32bits(v))
		}
		// Clicks depend a little on the dense features, so that a model
		// could learn something.
		l := int32(0)
		if r.Float64() < 0.1+0.3*float64(s/(NumDense*4)) {
			l = 1
		}
		labels = binary.LittleEndian.AppendUint32(labels, uint32(l))
	}
	if err := writeNpy(filepath.Join(dir, DenseFile), "<f4", []int{n, NumDense}, dense); err != nil {
		return err
	}
	if err := writeNpy(filepath.Join(dir, LabelsFile), "<i4", []int{n, 1}, labels); err != nil {
		return err
	}
	var members [NumSparse][]byte
	for k := range NumSparse {
		b := preprocess.NpyHeaderBytes("<i4", []int{n, MultiHot[k]})
		for range n * MultiHot[k] {
			b = binary.LittleEndian.AppendUint32(b, uint32(r.IntN(TableRows[k])))
		}
		members[k] = b
	}
	return WriteNpz(filepath.Join(dir, SparseFile), members[:])
}

func writeNpy(path, descr string, shape []int, data []byte) error {
	b := append(preprocess.NpyHeaderBytes(descr, shape), data...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("criteo: synth: %w", err)
	}
	return nil
}

// WriteNpz writes members (whole .npy files) as 0.npy, 1.npy, … of an
// uncompressed zip, as numpy.savez does.
func WriteNpz(path string, members [][]byte) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for k, m := range members {
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name:               strconv.Itoa(k) + ".npy",
			Method:             zip.Store,
			CRC32:              crc32.ChecksumIEEE(m),
			CompressedSize64:   uint64(len(m)),
			UncompressedSize64: uint64(len(m)),
		})
		if err != nil {
			return fmt.Errorf("criteo: npz: %w", err)
		}
		if _, err := w.Write(m); err != nil {
			return fmt.Errorf("criteo: npz: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("criteo: npz: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("criteo: npz: %w", err)
	}
	return nil
}
