package coco2017

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/internal/pyjson"
)

// Category is one COCO category.
type Category struct {
	ID                  int
	Name, Supercategory string
}

// Categories are COCO's 80 object categories in file order (ids 1..90
// with gaps), as instances_val2017.json lists them.
var Categories = []Category{
	{1, "person", "person"}, {2, "bicycle", "vehicle"}, {3, "car", "vehicle"}, {4, "motorcycle", "vehicle"},
	{5, "airplane", "vehicle"}, {6, "bus", "vehicle"}, {7, "train", "vehicle"}, {8, "truck", "vehicle"},
	{9, "boat", "vehicle"}, {10, "traffic light", "outdoor"}, {11, "fire hydrant", "outdoor"},
	{13, "stop sign", "outdoor"}, {14, "parking meter", "outdoor"}, {15, "bench", "outdoor"},
	{16, "bird", "animal"}, {17, "cat", "animal"}, {18, "dog", "animal"}, {19, "horse", "animal"},
	{20, "sheep", "animal"}, {21, "cow", "animal"}, {22, "elephant", "animal"}, {23, "bear", "animal"},
	{24, "zebra", "animal"}, {25, "giraffe", "animal"}, {27, "backpack", "accessory"},
	{28, "umbrella", "accessory"}, {31, "handbag", "accessory"}, {32, "tie", "accessory"},
	{33, "suitcase", "accessory"}, {34, "frisbee", "sports"}, {35, "skis", "sports"},
	{36, "snowboard", "sports"}, {37, "sports ball", "sports"}, {38, "kite", "sports"},
	{39, "baseball bat", "sports"}, {40, "baseball glove", "sports"}, {41, "skateboard", "sports"},
	{42, "surfboard", "sports"}, {43, "tennis racket", "sports"}, {44, "bottle", "kitchen"},
	{46, "wine glass", "kitchen"}, {47, "cup", "kitchen"}, {48, "fork", "kitchen"}, {49, "knife", "kitchen"},
	{50, "spoon", "kitchen"}, {51, "bowl", "kitchen"}, {52, "banana", "food"}, {53, "apple", "food"},
	{54, "sandwich", "food"}, {55, "orange", "food"}, {56, "broccoli", "food"}, {57, "carrot", "food"},
	{58, "hot dog", "food"}, {59, "pizza", "food"}, {60, "donut", "food"}, {61, "cake", "food"},
	{62, "chair", "furniture"}, {63, "couch", "furniture"}, {64, "potted plant", "furniture"},
	{65, "bed", "furniture"}, {67, "dining table", "furniture"}, {70, "toilet", "furniture"},
	{72, "tv", "electronic"}, {73, "laptop", "electronic"}, {74, "mouse", "electronic"},
	{75, "remote", "electronic"}, {76, "keyboard", "electronic"}, {77, "cell phone", "electronic"},
	{78, "microwave", "appliance"}, {79, "oven", "appliance"}, {80, "toaster", "appliance"},
	{81, "sink", "appliance"}, {82, "refrigerator", "appliance"}, {84, "book", "indoor"},
	{85, "clock", "indoor"}, {86, "vase", "indoor"}, {87, "scissors", "indoor"},
	{88, "teddy bear", "indoor"}, {89, "hair drier", "indoor"}, {90, "toothbrush", "indoor"},
}

// licenses are COCO's eight image licences (instances_val2017.json).
var licenses = []struct {
	URL  string
	ID   int
	Name string
}{
	{"http://creativecommons.org/licenses/by-nc-sa/2.0/", 1, "Attribution-NonCommercial-ShareAlike License"},
	{"http://creativecommons.org/licenses/by-nc/2.0/", 2, "Attribution-NonCommercial License"},
	{"http://creativecommons.org/licenses/by-nc-nd/2.0/", 3, "Attribution-NonCommercial-NoDerivs License"},
	{"http://creativecommons.org/licenses/by/2.0/", 4, "Attribution License"},
	{"http://creativecommons.org/licenses/by-sa/2.0/", 5, "Attribution-ShareAlike License"},
	{"http://creativecommons.org/licenses/by-nd/2.0/", 6, "Attribution-NoDerivs License"},
	{"http://flickr.com/commons/usage/", 7, "No known copyright restrictions"},
	{"http://www.usa.gov/copyright.shtml", 8, "United States Government Work"},
}

// licenseCycle is the licence of source image i mod 8: five of every
// eight safe (4–8), three not (1–3).
var licenseCycle = [8]int{1, 4, 2, 5, 3, 6, 7, 8}

// synthSizes are the image sizes cycled through, COCO's usual ones.
var synthSizes = [][2]int{{640, 480}, {427, 640}, {500, 375}, {612, 612}, {333, 500}, {640, 427}, {375, 500}, {480, 640}}

// SynthConfig describes a synthetic data set.
type SynthConfig struct {
	// N is the number of safe images (1..Size).
	N int
	// Seed selects the content; the same N and Seed give the same bytes.
	Seed uint64
}

// SynthSource writes, under dir, stand-ins for COCO's val2017.zip and
// annotations_trainval2017.zip holding cfg.N safe images among about
// 1.6·N (the others under non-commercial licences), with coloured boxes
// as objects and their annotations in instances_val2017.json's layout
// (info, COCO's licences, images, annotations with polygon segmentations,
// the 80 categories). It returns the two archives' paths.
func SynthSource(dir string, cfg SynthConfig) (imagesZip, annotationsZip string, err error) {
	if cfg.N < 1 || cfg.N > Size {
		return "", "", fmt.Errorf("coco2017: synth: %d images asked, want 1..%d", cfg.N, Size)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("coco2017: synth: %w", err)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636f636f32303137)) // "coco2017"
	imagesZip = filepath.Join(dir, "val2017.zip")
	annotationsZip = filepath.Join(dir, "annotations_trainval2017.zip")
	var js bytes.Buffer
	js.WriteString(`{"info": {"description": "COCO 2017 Dataset","url": "http://cocodataset.org","version": "1.0","year": 2017,"contributor": "COCO Consortium","date_created": "2017/09/01"},"licenses": [`)
	for i, l := range licenses {
		if i > 0 {
			js.WriteByte(',')
		}
		fmt.Fprintf(&js, `{"url": %q,"id": %d,"name": %q}`, l.URL, l.ID, l.Name)
	}
	var imgs, anns bytes.Buffer
	annID := 1
	seen := map[int]bool{}
	err = writeAtomic(imagesZip, func(w *bufio.Writer) error {
		zw := zip.NewWriter(w)
		var buf bytes.Buffer
		for i, safe := 0, 0; safe < cfg.N; i++ {
			lic := licenseCycle[i%len(licenseCycle)]
			if lic >= 4 {
				safe++
			}
			sz := synthSizes[i%len(synthSizes)]
			w, h := sz[0], sz[1]
			id := 0
			for id == 0 || seen[id] {
				id = 1 + rng.IntN(581900)
			}
			seen[id] = true
			name := fmt.Sprintf("%012d.jpg", id)
			var boxes []synthBox
			for range 1 + rng.IntN(4) {
				bw, bh := int(float64(w)*(0.1+0.5*rng.Float64())), int(float64(h)*(0.1+0.5*rng.Float64()))
				x0, y0 := rng.IntN(w-bw), rng.IntN(h-bh)
				boxes = append(boxes, synthBox{x0, y0, x0 + bw, y0 + bh, Categories[rng.IntN(len(Categories))].ID,
					[3]uint8{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))}})
			}
			buf.Reset()
			if err := jpeg.Encode(&buf, synthImage(w, h, boxes, rng), &jpeg.Options{Quality: 90}); err != nil {
				return err
			}
			f, err := zw.CreateHeader(&zip.FileHeader{Name: SourceImages + name, Method: zip.Store})
			if err != nil {
				return err
			}
			if _, err := f.Write(buf.Bytes()); err != nil {
				return err
			}
			if i > 0 {
				imgs.WriteByte(',')
			}
			fmt.Fprintf(&imgs, `{"license": %d,"file_name": %q,"coco_url": "http://images.cocodataset.org/val2017/%s","height": %d,"width": %d,"date_captured": "2013-11-%02d 12:%02d:%02d","flickr_url": "http://farm%d.staticflickr.com/%d/%d_%08x_z.jpg","id": %d}`,
				lic, name, name, h, w, 1+rng.IntN(28), rng.IntN(60), rng.IntN(60), 1+rng.IntN(9), 1000+rng.IntN(9000), rng.Int64N(1e10), rng.Uint32(), id)
			for _, b := range boxes {
				if annID > 1 {
					anns.WriteByte(',')
				}
				x0, y0, x1, y1 := float64(b.x0), float64(b.y0), float64(b.x1), float64(b.y1)
				var seg bytes.Buffer
				for k, v := range []float64{x0, y0, x1, y0, x1, y1, x0, y1} {
					if k > 0 {
						seg.WriteByte(',')
					}
					pyjson.Float(&seg, v+0.5)
				}
				var area bytes.Buffer
				pyjson.Float(&area, (x1-x0)*(y1-y0))
				fmt.Fprintf(&anns, `{"segmentation": [[%s]],"area": %s,"iscrowd": 0,"image_id": %d,"bbox": [%s,%s,%s,%s],"category_id": %d,"id": %d}`,
					seg.String(), area.String(), id, fmtF(x0), fmtF(y0), fmtF(x1-x0), fmtF(y1-y0), b.cat, annID)
				annID++
			}
		}
		return zw.Close()
	})
	if err != nil {
		return "", "", fmt.Errorf("coco2017: synth: %w", err)
	}
	js.WriteString(`],"images": [`)
	js.Write(imgs.Bytes())
	js.WriteString(`],"annotations": [`)
	js.Write(anns.Bytes())
	js.WriteString(`],"categories": [`)
	for i, c := range Categories {
		if i > 0 {
			js.WriteByte(',')
		}
		fmt.Fprintf(&js, `{"supercategory": %q,"id": %d,"name": %q}`, c.Supercategory, c.ID, c.Name)
	}
	js.WriteString("]}")
	err = writeAtomic(annotationsZip, func(w *bufio.Writer) error {
		zw := zip.NewWriter(w)
		f, err := zw.Create(SourceAnnotations)
		if err != nil {
			return err
		}
		if _, err := f.Write(js.Bytes()); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return "", "", fmt.Errorf("coco2017: synth: %w", err)
	}
	return imagesZip, annotationsZip, nil
}

func fmtF(v float64) string {
	var b bytes.Buffer
	pyjson.Float(&b, v)
	return b.String()
}

// Synth writes a synthetic data set of cfg.N images in the layout Load
// reads, made the way a real one is: SynthSource's archives, filtered by
// Prepare (they are written to a temporary folder under dir and removed).
func Synth(dir string, cfg SynthConfig) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("coco2017: synth: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".synth-source-")
	if err != nil {
		return fmt.Errorf("coco2017: synth: %w", err)
	}
	defer os.RemoveAll(tmp)
	iz, az, err := SynthSource(tmp, cfg)
	if err != nil {
		return err
	}
	r, err := Prepare(context.Background(), PrepareConfig{ImagesZip: iz, AnnotationsZip: az, Out: dir})
	if err != nil {
		return err
	}
	if len(r.Safe) != cfg.N {
		return fmt.Errorf("coco2017: synth: %d safe images, want %d", len(r.Safe), cfg.N)
	}
	return nil
}

// synthBox is one drawn object: its pixel rectangle, category and colour.
type synthBox struct {
	x0, y0, x1, y1 int
	cat            int
	c              [3]uint8
}

// synthImage draws a smooth background with the boxes as flat, slightly
// noisy rectangles. The background is a product of a sine along x and a
// cosine along y per channel, tabulated once per image.
func synthImage(w, h int, boxes []synthBox, rng *rand.Rand) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var sx, cy [3][]float64
	for c := range 3 {
		fx := (rng.Float64()*4 + 0.5) * 2 * math.Pi / float64(w)
		fy := (rng.Float64()*4 + 0.5) * 2 * math.Pi / float64(h)
		sx[c], cy[c] = make([]float64, w), make([]float64, h)
		for x := range w {
			sx[c][x] = 90 * math.Sin(fx*float64(x))
		}
		for y := range h {
			cy[c][y] = math.Cos(fy * float64(y))
		}
	}
	noise := rng.Uint64()
	for y := range h {
		row := img.Pix[y*img.Stride:]
		for x := range w {
			var v [3]float64
			for c := range 3 {
				v[c] = 128 + sx[c][x]*cy[c][y]
			}
			for _, b := range boxes {
				if x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1 {
					v = [3]float64{float64(b.c[0]), float64(b.c[1]), float64(b.c[2])}
				}
			}
			// ±6 of noise from a cheap per-pixel hash.
			noise = noise*6364136223846793005 + 1442695040888963407
			n := float64(int(noise>>60)%13 - 6)
			p := row[4*x : 4*x+4]
			p[0], p[1], p[2], p[3] = clamp8(v[0]+n), clamp8(v[1]+n), clamp8(v[2]+n), 255
		}
	}
	return img
}

func clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}
