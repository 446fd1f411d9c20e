package preprocess

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// NpyCacheConfig describes a preprocessed-sample cache to fill: one
// float32 .npy file of Shape per sample, the reference's preprocessed
// data set layout.
type NpyCacheConfig struct {
	// Total is the number of samples.
	Total int
	// Shape is each sample's array shape (its product is the sample's
	// length in float32 values).
	Shape []int
	// Src and Out give sample i's source image and its .npy file.
	Src, Out func(i int) string
	// Preprocess writes the preprocessed sample of the image file src into
	// dst (len = the product of Shape).
	Preprocess func(dst []float32, src string) error
	// Workers bounds the parallel work (< 1: runtime.GOMAXPROCS(0)).
	Workers int
	// Progress, if set, is called after each sample with the number done,
	// from one goroutine at a time.
	Progress func(done, total int)
	// Name prefixes errors (e.g. "resnet50").
	Name string
}

// WriteNpyCache preprocesses every sample into its .npy file. Existing
// files are kept; new ones are written through a temporary name, so a
// stopped run leaves no partial file. The first error stops the work and
// is returned; a cancelled ctx stops it too.
func WriteNpyCache(ctx context.Context, c NpyCacheConfig) error {
	workers := c.Workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := 1
	for _, d := range c.Shape {
		n *= d
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		mu    sync.Mutex
		done  int
		first error
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float32, n)
			for i := range next {
				out := c.Out(i)
				if _, err := os.Stat(out); err != nil {
					if err := c.writeOne(buf, c.Src(i), out); err != nil {
						mu.Lock()
						if first == nil {
							first = err
						}
						mu.Unlock()
						cancel()
						continue
					}
				}
				mu.Lock()
				done++
				if c.Progress != nil {
					c.Progress(done, c.Total)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range c.Total {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: preprocessing stopped: %w", c.Name, err)
	}
	return nil
}

func (c *NpyCacheConfig) writeOne(buf []float32, src, out string) error {
	if err := c.Preprocess(buf, src); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	tmp := out + ".tmp"
	if err := SaveNpy(tmp, c.Shape, buf); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	return nil
}
