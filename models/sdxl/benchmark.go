package sdxl

// The sdxl benchmark as the framework runs it: its descriptor and driver
// (see package benchmark/spec).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2014"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlperf.conf and the submission checker's constants).
const (
	// confName is the model name in mlperf.conf and user.conf.
	confName = "stable-diffusion-xl"
	// checkerID is the submission checker's name (accuracy.Targets).
	checkerID = "stable-diffusion-xl"
	// performanceSampleCount is the reference QSL's (mlperf.conf's
	// override is the same 5000).
	performanceSampleCount = 5000
	// warmupCaption is the caption of the reference's warm-up runs
	// (text_to_image/main.py).
	warmupCaption = "Lorem ipsum dolor sit amet, consectetur adipiscing elit"
	// warmups is the reference's number of warm-up generations.
	warmups = 5
	// synthSamples is the size of the `--data synthetic` data set.
	synthSamples = 5
)

// Option names.
const (
	optSteps     = "steps"
	optWarmup    = "warmup"
	optFIDModel  = "fid-model"
	optCLIPModel = "clip-model"
	optFIDStats  = "fid-stats"
	optReview    = "review-images"
)

// descriptor is the SDXL benchmark descriptor.
var descriptor = &spec.Benchmark{
	Name:       "sdxl",
	Summary:    "Stable Diffusion XL 1.0 base on 5000 COCO-2014 captions (text encoders, 20 Euler steps with guidance 8, VAE), FID and CLIP score",
	ConfNames:  []string{confName},
	CheckerIDs: []string{checkerID},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline, loadgen.Server},
	Dataset:    "coco2014",
	Model: spec.Models{
		Default: "synthetic:tiny",
		Sizes: []spec.Size{
			{Name: sizeFull, Summary: "SDXL base 1.0 shapes: text encoders 123M + 695M, UNet 2.57B, VAE decoder 49M parameters (about 14 GB fp32)"},
			{Name: sizeTiny, Summary: "every block at widths 16–96, 8×8 latents (64×64 images), 3 steps"},
			{Name: sizeTinyFP16, Summary: "tiny with float16 inputs and outputs, as a half-precision export"},
		},
		Seed: archSeed,
	},
	Options: []spec.Option{
		{Name: optSteps, Usage: "denoising steps instead of the model's (20 for a real model); for diagnosis only, refused in submission runs"},
		{Name: optWarmup, Default: strconv.Itoa(warmups), Usage: "untimed warm-up generations before the run (the reference's 5)"},
		{Name: optFIDModel, Usage: "pytorch-fid InceptionV3 as ONNX (input images [N,3,299,299] in [-1,1], output features [N,2048]); synthetic stand-in with a synthetic model or data"},
		{Name: optCLIPModel, Usage: "folder with the open_clip ViT-B/32 towers as ONNX (visual/model.onnx, text/model.onnx) and tokenizer/"},
		{Name: optFIDStats, Usage: "FID reference statistics (.npz with mu and sigma; default DATA/" + coco2014.StatsFile + ")"},
		{Name: optReview, Usage: "folder for the 10 review images and captions.txt of an accuracy run (default OUT/images)"},
	},
	LocalOnly:  "SDXL is a pipeline of models (two text encoders, the UNet over the denoising steps, the VAE decoder) driven from this process, so behind a remote backend its sampling loop would run on the LoadGen node",
	Compliance: []string{"TEST01", "TEST04"},
	Driver:     driver{},
}

// driver is the sdxl benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder (Build).
func (driver) BuildModel(path, size string, seed uint64) error { return build(path, size, seed) }

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// scorerSize is the synthetic scorer size for a model size and data:
// tiny only for a tiny model on synthetic data (narrow features).
func scorerSize(modelSize, data string) string {
	if (modelSize == sizeTiny || modelSize == sizeTinyFP16) && data == "synthetic" {
		return sizeTiny
	}
	return sizeFull
}

func intOpt(x spec.Extra, name string, def int) (int, error) {
	v, ok := x[name]
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, spec.UsageError("sdxl: --%s %q: want a non-negative integer", name, v)
	}
	return n, nil
}

// Open implements spec.Driver: the pipeline's models through env.Engine,
// warmed up as the reference does, and the captions' tokens as samples.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (*spec.Instance, error) {
	if env.Cache != "" {
		fmt.Fprintln(env.Stderr, "sdxl: --cache is not used: the prompts and latents are read from --data")
	}
	dir, err := modelDir(env.ModelPath)
	if err != nil {
		return nil, err
	}
	steps, err := intOpt(env.Extra, optSteps, 0)
	if err != nil {
		return nil, err
	}
	if steps > 0 && env.Mode == loadgen.SubmissionRun {
		return nil, spec.UsageError("sdxl: --steps is for diagnosis only; a submission run uses the reference's %d steps", referenceSteps)
	}
	warm, err := intOpt(env.Extra, optWarmup, warmups)
	if err != nil {
		return nil, err
	}
	if os.Getenv("FORCE_NO_WARMUP") != "" {
		warm = 0
	}
	latent, synthSize := modelShape(dir, env.SyntheticSize)
	data, err := dataDir(env.Data, env.CacheDir, latent, scorerDims[scorerSize(synthSize, env.Data)])
	if err != nil {
		return nil, err
	}
	ds, err := coco2014.Load(data, env.Count)
	if err != nil {
		return nil, err
	}
	lat, shape, err := coco2014.LoadLatents(data)
	if err != nil {
		return nil, err
	}
	p, err := openPipeline(ctx, pipelineConfig{Dir: dir, Latents: lat, LatentsShape: shape, Steps: steps,
		Open: func(path string) (backend.Session, error) { return env.Engine.OpenSession(path, nil) }})
	if err != nil {
		return nil, err
	}
	if warm > 0 {
		fmt.Fprintf(env.Stderr, "sdxl: %d warm-up generations\n", warm)
		w := p.Tokenize(warmupCaption)
		for range warm {
			if _, err := p.Generate(ctx, []tokens{w}); err != nil {
				p.Close()
				return nil, fmt.Errorf("sdxl: warm-up: %w", err)
			}
		}
	}
	q, err := harness.NewQSL(harness.QSLConfig[tokens]{
		Total:       ds.Len(),
		Performance: min(ds.Len(), performanceSampleCount),
		Load: func(_ context.Context, i int) (tokens, error) {
			return p.Tokenize(ds.Captions[i].Text), nil
		},
	})
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("sdxl: %w", err)
	}
	gen := func(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
		toks := make([]tokens, len(idx))
		for i, s := range idx {
			t, ok := q.Sample(s)
			if !ok {
				return fmt.Errorf("sdxl: sample %d is not loaded", s)
			}
			toks[i] = t
		}
		imgs, err := p.Generate(ctx, toks)
		if err != nil {
			return err
		}
		for i := range out {
			out[i].Data = imgs[i]
		}
		return nil
	}
	inst := &spec.Instance{
		Model: harness.ModelFunc(gen),
		QSL:   q,
		Describe: fmt.Sprintf("sdxl: model %s (%d steps, guidance %d, %d×%d images), %d captions from %s, batch %d, %d worker(s)",
			dir, p.Steps(), guidance, p.ImageW, p.ImageH, ds.Len(), data, env.Batch, env.Workers),
		Close: p.Close,
	}
	if synthSize != "" && p.Steps() != referenceSteps {
		inst.Describe += fmt.Sprintf("; the synthetic %s model runs %d steps, not the reference's %d", synthSize, p.Steps(), referenceSteps)
	}
	return inst, nil
}

// modelShape is the latent size of the model in dir (128, SDXL's, unless
// its model_index.json says otherwise) and its synthetic size: size, or
// the index's (a synthetic model given as a folder, as mlperf model build
// writes it, counts as synthetic too).
func modelShape(dir, size string) (latent int64, synthSize string) {
	latent = 128
	idx := readModelIndex(dir)
	if idx.LatentSize > 0 {
		latent = idx.LatentSize
	}
	if size == "" {
		size = idx.Size
	}
	return latent, size
}

// Score implements spec.Driver: FID and CLIP score of the logged images.
// In a run (req.ModelPath set) the data set and the scorer models are
// those of the run's model; after the fact (`mlperf accuracy sdxl`) a
// synthetic data set means the tiny synthetic scorers.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	open := func(p string, outs []string) (backend.Session, error) { return req.Engine.OpenSession(p, outs) }
	if req.ModelPath != "" {
		dir, err := modelDir(req.ModelPath)
		if err != nil {
			return nil, err
		}
		latent, synthSize := modelShape(dir, req.SyntheticSize)
		size := scorerSize(synthSize, req.Data)
		data, err := dataDir(req.Data, req.CacheDir, latent, scorerDims[size])
		if err != nil {
			return nil, err
		}
		review := req.Extra[optReview]
		if review == "" && req.Out != "" {
			review = filepath.Join(req.Out, "images")
		}
		r := *req
		r.Data = data
		return scoreLog(ctx, &r, synthSize != "" || req.Data == "synthetic", size, review, open)
	}
	size := sizeFull
	if req.Data == "synthetic" {
		size = sizeTiny
		d, err := dataDir(req.Data, req.CacheDir, configs[sizeTiny].LatentSize, scorerDims[sizeTiny])
		if err != nil {
			return nil, err
		}
		req.Data = d
	}
	return scoreLog(ctx, req, req.Data != "" && size == sizeTiny, size, req.Extra[optReview], open)
}

// scoreLog scores with the given or the synthetic scorer models.
func scoreLog(ctx context.Context, req *spec.ScoreRequest, synthetic bool, size, review string, open func(string, []string) (backend.Session, error)) (*spec.Score, error) {
	ds, err := coco2014.Load(req.Data, req.Count)
	if err != nil {
		return nil, err
	}
	statsPath := req.Extra[optFIDStats]
	if statsPath == "" {
		statsPath = coco2014.StatsPath(req.Data)
	}
	stats, err := coco2014.LoadStats(statsPath)
	if err != nil {
		return nil, err
	}
	fid, clip := req.Extra[optFIDModel], req.Extra[optCLIPModel]
	if fid == "" || clip == "" {
		if !synthetic {
			return nil, spec.UsageError("sdxl: --%s and --%s are required to score a real model (pytorch-fid InceptionV3 and open_clip ViT-B/32 as ONNX; see models/sdxl/README.md)", optFIDModel, optCLIPModel)
		}
		dir := filepath.Join(req.CacheDir, "sdxl-scorers-synthetic-"+size)
		synthMu.Lock()
		if _, err := os.Stat(filepath.Join(dir, inceptionFile)); err != nil {
			if err := buildOnce(dir, func(tmp string) error { return buildScorers(tmp, size, archSeed) }); err != nil {
				synthMu.Unlock()
				return nil, err
			}
		}
		synthMu.Unlock()
		if fid == "" {
			fid = filepath.Join(dir, inceptionFile)
		}
		if clip == "" {
			clip = filepath.Join(dir, clipDir)
		}
	}
	s, err := openScorer(func(p string) (backend.Session, error) { return open(p, nil) }, fid, clip, stats)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.ReviewDir = review
	if s.ReviewIDs, err = reviewIDsOf(req.AccuracyFiles); err != nil {
		return nil, err
	}
	res, err := s.Score(ctx, req.Log, ds.Captions)
	if err != nil {
		return nil, err
	}
	return &spec.Score{Lines: []string{res.String()}}, nil
}
