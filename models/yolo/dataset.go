package yolo

// The coco2017 data set's commands: dataset synth, verify and preprocess
// (the safe subset from COCO's archives).

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2017"
)

// dataset is the COCO 2017 safe subset's commands.
var dataset = &spec.Dataset{
	Name:       "coco2017",
	Summary:    "COCO val2017 images with safe licences (1525 images) and their annotations, the YOLO data set",
	DataWant:   "the YOLO data set folder (val2017_safe/*.jpg and annotations/instances_val2017.json)",
	Download:   "models/yolo/download_dataset.sh",
	Synth:      synthCommand,
	Verify:     verifyCommand,
	Preprocess: prepareCommand,
	Options: []spec.Option{
		{Name: "annotations", Usage: "annotation file (default DATA/" + coco2017.AnnotationsPath + ")"},
	},
}

func synthCommand(req *spec.DatasetRequest) error {
	if req.Out == "" {
		return spec.UsageError("coco2017: synth: -o DIR is required")
	}
	n, seed := req.N, req.Seed
	if n == 0 {
		n = synthSamples
	}
	if seed == 0 {
		seed = synthSeed
	}
	if err := coco2017.Synth(req.Out, coco2017.SynthConfig{N: n, Seed: seed}); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d images under %s and %s\n", n, filepath.Join(req.Out, coco2017.ImagesPath), filepath.Join(req.Out, coco2017.AnnotationsPath))
	return nil
}

func verifyCommand(req *spec.DatasetRequest) error {
	if req.Data == "" {
		return spec.UsageError("coco2017: verify: --data DIR is required")
	}
	expect := coco2017.Size
	if req.NSet {
		expect = req.N
	}
	r, err := coco2017.Verify(req.Data, req.Extra["annotations"], req.Workers)
	if err != nil {
		return err
	}
	fmt.Fprint(req.Stdout, r.String())
	if !r.OK(expect) {
		if expect > 0 && r.Listed != expect {
			return fmt.Errorf("coco2017: %s lists %d images, want %d (-n 0 accepts any count)", r.Annotations, r.Listed, expect)
		}
		return fmt.Errorf("coco2017: %s does not verify (see above)", req.Data)
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}

// prepareCommand is `mlperf dataset preprocess coco2017 --data AUX -o DIR`:
// the safe subset from COCO's archives in AUX (val2017.zip and
// annotations_trainval2017.zip), as the reference's two scripts make it.
func prepareCommand(req *spec.DatasetRequest) error {
	if req.Data == "" || req.Out == "" {
		return spec.UsageError("coco2017: preprocess: --data DIR (holding COCO's val2017.zip and annotations_trainval2017.zip) and -o OUT are required")
	}
	p := req.StartProgress("copying safe images", "images")
	r, err := coco2017.Prepare(req.Context(), coco2017.PrepareConfig{
		ImagesZip:      filepath.Join(req.Data, "val2017.zip"),
		AnnotationsZip: filepath.Join(req.Data, "annotations_trainval2017.zip"),
		Out:            req.Out,
		Progress:       p.Update,
	})
	p.Done()
	if err != nil {
		return err
	}
	// The reference scripts' report lines.
	fmt.Fprintf(req.Stdout, "Total images: %d\nSafe images: %d\nCopied %d images to %s\nSaved filtered annotations to %s\nTotal annotations: %d\n",
		r.Images, len(r.Safe), len(r.Safe), filepath.Join(req.Out, coco2017.ImagesPath), filepath.Join(req.Out, coco2017.AnnotationsPath), r.SafeAnnotations)
	return nil
}
