// Package preprocess holds the image pipeline pieces shared by the vision
// benchmarks, each reproducing what the MLPerf reference gets from OpenCV
// bit for bit:
//
//   - Decode / ReadFile: cv2.imread(path) (IMREAD_COLOR): libjpeg-turbo with
//     the accurate integer IDCT and fancy upsampling (through the cgo package
//     preprocess/libjpeg), CMYK converted as OpenCV does, EXIF orientation
//     applied as OpenCV does.
//   - ResizeArea: cv2.resize(..., interpolation=cv2.INTER_AREA) on uint8
//     images, including its integer fast path, its float32 area path and its
//     fixed-point bilinear path when enlarging.
//   - ResizeLinear: cv2.resize(..., interpolation=cv2.INTER_LINEAR) on uint8
//     images; ResizeLinearF32 the same on float32 images (RetinaNet).
//   - CenterCrop, SwapRB, and conversions to normalised CHW float32.
//   - ReadNpy / WriteNpy: NumPy .npy files (the reference's preprocessed
//     cache).
//
// Everything here is pure Go except JPEG decoding, which needs cgo; built
// with CGO_ENABLED=0 the package still compiles and Decode returns an error
// wrapping libjpeg.ErrUnavailable.
//
// Functions allocate their results; the *Into variants write into
// caller-owned buffers. No function keeps references to its arguments, and
// all are safe for concurrent use on distinct outputs.
package preprocess
