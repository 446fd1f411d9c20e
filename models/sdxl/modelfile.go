package sdxl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/diffusion"
	"github.com/mlperf-go/inference/diffusion/cliptok"
	"github.com/mlperf-go/inference/onnx"
)

// archSeed is the default weight seed of the synthetic models.
const archSeed uint64 = 20240401

// negativePrompt is the reference's fixed negative prompt
// (mlcommons/inference text_to_image/backend_pytorch.py).
const negativePrompt = "normal quality, low quality, worst quality, low res, blurry, nsfw, nude"

// tokenizerCorpus is the text the synthetic tokenizer's merges are
// learned from: the negative prompt and common caption words.
const tokenizerCorpus = negativePrompt + ` a man woman person people dog cat horse bird train bus car truck
street road city building table plate food pizza sandwich kitchen room bed living bathroom toilet sink
sitting standing holding riding walking playing eating looking next to on in of with the and near front
top white black red blue green yellow large small two three group field grass water beach ocean sky
snow skiing surfing board tennis baseball ball game park bench clock tower sign giraffe elephant zebra
sheep cow bear umbrella laptop computer phone window door wall picture photo image view`

// syntheticMerges is the number of merges of the synthetic tokenizer.
const syntheticMerges = 400

// Model folder layout (optimum's export of the diffusers pipeline):
// <dir>/{text_encoder,text_encoder_2,unet,vae_decoder}/model.onnx,
// <dir>/tokenizer, <dir>/tokenizer_2 (Hugging Face CLIP tokenizer files),
// <dir>/scheduler/scheduler_config.json and the optional
// <dir>/vae_decoder/config.json (scaling_factor).
const (
	tokenizerDir  = "tokenizer"
	tokenizer2Dir = "tokenizer_2"
	schedulerFile = "scheduler/scheduler_config.json"
	vaeConfigFile = "vae_decoder/config.json"
)

// partPath is the ONNX file of part (one of Parts) in a model folder.
func partPath(dir, part string) string { return filepath.Join(dir, part, "model.onnx") }

// build writes the synthetic model of size and seed into the folder of
// path in optimum's layout, and links path (the model.onnx the benchmark
// registry resolves) to its unet/model.onnx. Same size and seed, same
// bytes.
func build(path, size string, seed uint64) error {
	dir := filepath.Dir(path)
	vocab, merges := cliptok.Synthetic(tokenizerCorpus, syntheticMerges)
	cfg, err := configOf(size, int64(len(vocab)))
	if err != nil {
		return err
	}
	if err := checkConfig(cfg); err != nil {
		return err
	}
	if err := cliptok.Write(filepath.Join(dir, tokenizerDir), vocab, merges, cliptok.EOS, cliptok.ContextLength); err != nil {
		return err
	}
	if err := cliptok.Write(filepath.Join(dir, tokenizer2Dir), vocab, merges, "!", cliptok.ContextLength); err != nil {
		return err
	}
	graphs := map[string]func() *onnx.Graph{
		"text_encoder":   func() *onnx.Graph { return textEncoder(cfg.Text1, cfg.Float16IO, seed) },
		"text_encoder_2": func() *onnx.Graph { return textEncoder(cfg.Text2, cfg.Float16IO, seed+1) },
		"unet":           func() *onnx.Graph { return unet(cfg, seed+2) },
		"vae_decoder":    func() *onnx.Graph { return vaeDecoder(cfg, seed+3) },
	}
	for _, part := range parts {
		p := partPath(dir, part)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("sdxl: %w", err)
		}
		if err := graphs[part]().WriteFile(p, onnx.FileOptions{}); err != nil {
			return fmt.Errorf("sdxl: %s: %w", part, err)
		}
	}
	sc := diffusion.DefaultSchedulerConfig()
	js := map[string]any{
		schedulerFile: sc,
		vaeConfigFile: map[string]any{"_class_name": "AutoencoderKL", "scaling_factor": cfg.VAE.ScalingFactor,
			"latent_channels": cfg.LatentChannels, "block_out_channels": cfg.VAE.Channels, "force_upcast": true},
		"model_index.json": map[string]any{"_class_name": "ORTStableDiffusionXLPipeline", "synthetic_size": size,
			"synthetic_seed": seed, "steps": cfg.Steps, "latent_size": cfg.LatentSize},
	}
	for name, v := range js {
		b, _ := json.MarshalIndent(v, "", "  ")
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("sdxl: %w", err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fmt.Errorf("sdxl: %w", err)
		}
	}
	if err := os.Symlink(filepath.Join("unet", "model.onnx"), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sdxl: %w", err)
	}
	return nil
}

// modelDir finds the model folder of a --model value: the folder itself,
// or the folder of a file in it (model.onnx, model_index.json) or in one
// of its parts (unet/model.onnx).
func modelDir(spec string) (string, error) {
	st, err := os.Stat(spec)
	if err != nil {
		return "", fmt.Errorf("sdxl: --model %s: %w", spec, err)
	}
	dir := spec
	if !st.IsDir() {
		dir = filepath.Dir(spec)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if st, err := os.Stat(filepath.Join(d, "unet")); err == nil && st.IsDir() {
			return d, nil
		}
	}
	return "", fmt.Errorf("sdxl: --model %s is not an SDXL model folder (want text_encoder/, text_encoder_2/, unet/, vae_decoder/ each with model.onnx, tokenizer/, tokenizer_2/, as optimum-cli export onnx writes them; see models/sdxl/download_model.sh)", spec)
}

// modelIndex is what a synthetic folder's model_index.json adds.
type modelIndex struct {
	Size       string `json:"synthetic_size"`
	Steps      int    `json:"steps"`
	LatentSize int64  `json:"latent_size"`
}

func readModelIndex(dir string) modelIndex {
	var m modelIndex
	if b, err := os.ReadFile(filepath.Join(dir, "model_index.json")); err == nil {
		json.Unmarshal(b, &m)
	}
	return m
}

// vaeScalingFactor reads vae_decoder/config.json's scaling_factor (SDXL's
// 0.13025 when absent).
func vaeScalingFactor(dir string) (float32, error) {
	b, err := os.ReadFile(filepath.Join(dir, vaeConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return configs[sizeFull].VAE.ScalingFactor, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sdxl: %w", err)
	}
	var c struct {
		Scale *float64 `json:"scaling_factor"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return 0, fmt.Errorf("sdxl: %s: %w", filepath.Join(dir, vaeConfigFile), err)
	}
	if c.Scale == nil {
		return configs[sizeFull].VAE.ScalingFactor, nil
	}
	if !(*c.Scale > 0) {
		return 0, fmt.Errorf("sdxl: %s: scaling_factor %v, want > 0", filepath.Join(dir, vaeConfigFile), *c.Scale)
	}
	return float32(*c.Scale), nil
}

// statFile stats a file that must exist and be a regular file (symbolic
// links followed).
func statFile(p string) (fs.FileInfo, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return st, nil
}
