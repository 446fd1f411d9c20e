package whisper

import (
	"fmt"
	"os"
	"path/filepath"
)

// modelFiles are a model's three ONNX files.
type modelFiles struct {
	Dir, Encoder, Decoder, DecoderWithPast string
}

// findModelFiles finds the optimum layout's files from path: a folder holding
// them, or one of them (its folder is used). A folder with only
// decoder_model_merged.onnx (optimum's default post-processing) is
// refused with the export that keeps the two decoders.
func findModelFiles(path string) (modelFiles, error) {
	st, err := os.Stat(path)
	if err != nil {
		return modelFiles{}, fmt.Errorf("whisper: %w", err)
	}
	dir := path
	if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	f := modelFiles{Dir: dir, Encoder: filepath.Join(dir, encoderFile), Decoder: filepath.Join(dir, decoderFile), DecoderWithPast: filepath.Join(dir, decoderWithPastFile)}
	var missing []string
	for _, p := range []string{f.Encoder, f.Decoder, f.DecoderWithPast} {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			missing = append(missing, filepath.Base(p))
		}
	}
	if len(missing) == 0 {
		return f, nil
	}
	hint := "export the model with optimum-cli export onnx --task automatic-speech-recognition-with-past (see models/whisper/download_model.sh)"
	if _, err := os.Stat(filepath.Join(dir, "decoder_model_merged.onnx")); err == nil {
		hint = "only the merged decoder is there; this suite runs decoder_model.onnx and decoder_with_past_model.onnx: export again with optimum-cli's --no-post-process, or keep both files"
	}
	return modelFiles{}, fmt.Errorf("whisper: %s lacks %v: %s", dir, missing, hint)
}
