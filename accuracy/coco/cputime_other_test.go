//go:build !unix

package coco

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
