package resnet50

import (
	"encoding/binary"
	"fmt"
	"math"
)

// labelOffset is added to the model's ArgMax to get the ImageNet label
// (0..999): the model's class 0 is background. The reference's
// PostProcessCommon(offset=-1).
const labelOffset = -1

// responseSize is the size in bytes of one sample's response.
const responseSize = 4

// label converts the model's ArgMax to the ImageNet label, ArgMax − 1
// (−1 for the background class).
func label(argmax int64) int64 { return argmax + labelOffset }

// encodeResponse appends the response bytes of one sample to dst and
// returns the extended slice: the label ArgMax − 1 as one little-endian
// float32, exactly what the reference's np.float32(...).tobytes() writes
// (label 65 is hex 00008242 in mlperf_log_accuracy.json).
func encodeResponse(dst []byte, argmax int64) []byte {
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(label(argmax))))
}

// DecodeResponse returns the label a response holds. It is an error if
// data is not one float32 holding an integer label in −1..999.
func DecodeResponse(data []byte) (int, error) {
	if len(data) != responseSize {
		return 0, fmt.Errorf("resnet50: response of %d bytes, want %d (one float32)", len(data), responseSize)
	}
	f := math.Float32frombits(binary.LittleEndian.Uint32(data))
	if f != float32(int(f)) || f < -1 || f > classes-2 {
		return 0, fmt.Errorf("resnet50: response %v is not a label in -1..%d", f, classes-2)
	}
	return int(f), nil
}
