package loadgen

import (
	"encoding/hex"
	"fmt"

	"github.com/mlperf-go/inference/loadgen/rng"
)

// sampleMask draws the accuracy-log sampling decision of the next n
// samples (performance mode). It returns nil when nothing is sampled.
func (lw *logWriter) sampleMask(e *effective, n int) []uint64 {
	prob := e.accLogProbability
	if e.accLogSamplingTarget > 0 {
		if exp := e.accuracyLogExpected(); exp > 0 {
			prob = float64(e.accLogSamplingTarget) / float64(exp)
		}
	}
	first := lw.nextSeq - uint64(n)
	if prob <= 0 {
		return nil
	}
	if lw.accRNG == nil {
		lw.accRNG = rng.New(5489)
	}
	for lw.accRNGDrawn < first { // samples of earlier series consumed values too
		lw.accRNG.Canonical()
		lw.accRNGDrawn++
	}
	offset := rng.New(e.accLogSeed).Canonical()
	mask := make([]uint64, (n+63)/64)
	for i := 0; i < n; i++ {
		v := lw.accRNG.Canonical() + offset
		if v >= 1 {
			v -= 1
		}
		if v <= prob {
			mask[i/64] |= 1 << (i % 64)
		}
	}
	lw.accRNGDrawn += uint64(n)
	return mask
}

// keepFirstToken stores a sample's first-token data for token_data.
func (lw *logWriter) keepFirstToken(seq uint64, data []byte) {
	lw.accMu.Lock()
	lw.firstTok[seq] = append([]byte(nil), data...)
	lw.accMu.Unlock()
}

func (lw *logWriter) firstTokenData(seq uint64) []byte {
	lw.accMu.Lock()
	defer lw.accMu.Unlock()
	d := lw.firstTok[seq]
	delete(lw.firstTok, seq)
	return d
}

// accuracyEntry appends one entry to mlperf_log_accuracy.json.
func (lw *logWriter) accuracyEntry(seq, qslIdx uint64, data, tokenData []byte, nTokens int, tokens, offline bool) {
	lw.accMu.Lock()
	defer lw.accMu.Unlock()
	if lw.accuracy == nil {
		return
	}
	w := lw.accuracy
	if lw.accCount == 0 {
		w.WriteString("\n")
	} else {
		w.WriteString(",\n")
	}
	lw.accCount++
	fmt.Fprintf(w, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "`, seq, qslIdx)
	w.Write(upperHex(&lw.accHexBuf, data))
	w.WriteString(`"`)
	if tokens {
		if !offline {
			w.WriteString(`, "token_data" : "`)
			w.Write(upperHex(&lw.accHexBuf, tokenData))
			w.WriteString(`"`)
		}
		fmt.Fprintf(w, `, "token_count" : %d`, nTokens)
	}
	w.WriteString(" }")
}

func upperHex(buf *[]byte, data []byte) []byte {
	n := hex.EncodedLen(len(data))
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	const digits = "0123456789ABCDEF"
	for i, c := range data {
		b[2*i] = digits[c>>4]
		b[2*i+1] = digits[c&15]
	}
	return b
}
