//go:build !windows

package ort

/*
#cgo linux LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

// mlperf_dlopen opens path for good (never closed) with its symbols
// global, returning dlerror's text on failure (read on the same thread).
static const char *mlperf_dlopen(const char *path) {
	if (dlopen(path, RTLD_NOW | RTLD_GLOBAL) != NULL) {
		return NULL;
	}
	const char *e = dlerror();
	return e != NULL ? e : "unknown dlopen error";
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// dlopenGlobal loads a shared library into the process for its lifetime:
// by absolute path, or by bare name through the dynamic loader's search.
// The loader then satisfies later needs of that soname with it.
func dlopenGlobal(path string) error {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	if e := C.mlperf_dlopen(p); e != nil {
		return errors.New(C.GoString(e))
	}
	return nil
}
