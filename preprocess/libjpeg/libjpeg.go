//go:build cgo

package libjpeg

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

// mlpj is one decompression in progress. It lives in C memory for the
// duration of one Decode call sequence (open, read, close).
typedef struct {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr jerr;
	jmp_buf jb;
	int corrupt;                    // a data-corruption warning was seen
	int warned;                     // a tolerated warning was seen
	char msg[JMSG_LENGTH_MAX];      // fatal error or corruption warning text
	char warnmsg[JMSG_LENGTH_MAX];  // tolerated warning text
	const unsigned char *app1;      // first APP1 marker payload, owned by libjpeg
	unsigned int app1_len;
} mlpj;

static void mlpj_error_exit(j_common_ptr cinfo) {
	mlpj *s = (mlpj *)cinfo->client_data;
	(*cinfo->err->format_message)(cinfo, s->msg);
	longjmp(s->jb, 1);
}

// Warnings that mean the entropy-coded data is damaged: the image libjpeg
// goes on to produce is partly invented, so Decode reports an error.
static int mlpj_is_corruption(int code) {
	switch (code) {
	case JWRN_JPEG_EOF:
	case JWRN_HIT_MARKER:
	case JWRN_HUFF_BAD_CODE:
	case JWRN_ARITH_BAD_CODE:
	case JWRN_MUST_RESYNC:
		return 1;
	}
	return 0;
}

static void mlpj_emit_message(j_common_ptr cinfo, int level) {
	mlpj *s = (mlpj *)cinfo->client_data;
	if (level >= 0) {
		return; // trace messages
	}
	int code = cinfo->err->msg_code;
	if (mlpj_is_corruption(code)) {
		if (!s->corrupt) {
			(*cinfo->err->format_message)(cinfo, s->msg);
		}
		s->corrupt = 1;
	} else if (!s->warned) {
		(*cinfo->err->format_message)(cinfo, s->warnmsg);
		s->warned = 1;
	}
	cinfo->err->num_warnings++;
}

static void mlpj_output_message(j_common_ptr cinfo) { (void)cinfo; }

static mlpj *mlpj_new(void) {
	mlpj *s = (mlpj *)calloc(1, sizeof(mlpj));
	if (s == NULL) {
		return NULL;
	}
	s->cinfo.err = jpeg_std_error(&s->jerr);
	s->jerr.error_exit = mlpj_error_exit;
	s->jerr.emit_message = mlpj_emit_message;
	s->jerr.output_message = mlpj_output_message;
	s->cinfo.client_data = s;
	if (setjmp(s->jb)) {
		return s; // msg set; caller sees s->cinfo.global_state == 0
	}
	jpeg_create_decompress(&s->cinfo);
	return s;
}

// mlpj_header reads the header of data (which must stay valid and unmoved
// until mlpj_free) and chooses the output colour space as OpenCV's
// JpegDecoder does for IMREAD_COLOR: 3 components (BGR or RGB) unless the
// file has 4 components, which are decoded as CMYK.
// Returns 0 on success, -1 on a fatal error (s->msg).
static int mlpj_header(mlpj *s, const unsigned char *data, unsigned long len, int rgb) {
	if (setjmp(s->jb)) {
		return -1;
	}
	jpeg_mem_src(&s->cinfo, data, len);
	jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xffff);
	jpeg_read_header(&s->cinfo, TRUE);
	if (s->cinfo.num_components != 4) {
		s->cinfo.out_color_space = rgb ? JCS_RGB : JCS_EXT_BGR;
		s->cinfo.out_color_components = 3;
	} else {
		s->cinfo.out_color_space = JCS_CMYK;
		s->cinfo.out_color_components = 4;
	}
	jpeg_saved_marker_ptr m;
	for (m = s->cinfo.marker_list; m != NULL; m = m->next) {
		if (m->marker == JPEG_APP0 + 1) {
			s->app1 = m->data;
			s->app1_len = m->data_length;
			break;
		}
	}
	return 0;
}

static int mlpj_width(mlpj *s) { return (int)s->cinfo.image_width; }
static int mlpj_height(mlpj *s) { return (int)s->cinfo.image_height; }
static int mlpj_out_components(mlpj *s) { return s->cinfo.out_color_components; }
static int mlpj_components(mlpj *s) { return s->cinfo.num_components; }

// mlpj_read decodes the whole image into out (height rows of stride bytes).
// Returns 0 on success, -1 on a fatal error (s->msg).
static int mlpj_read(mlpj *s, unsigned char *out, size_t stride) {
	if (setjmp(s->jb)) {
		return -1;
	}
	jpeg_start_decompress(&s->cinfo);
	JSAMPROW rows[16];
	while (s->cinfo.output_scanline < s->cinfo.output_height) {
		JDIMENSION y = s->cinfo.output_scanline;
		int n = (int)(s->cinfo.output_height - y);
		if (n > 16) {
			n = 16;
		}
		for (int i = 0; i < n; i++) {
			rows[i] = out + (size_t)(y + i) * stride;
		}
		if (jpeg_read_scanlines(&s->cinfo, rows, (JDIMENSION)n) == 0) {
			break; // suspension cannot happen with a memory source
		}
	}
	jpeg_finish_decompress(&s->cinfo);
	return 0;
}

static void mlpj_free(mlpj *s) {
	if (s == NULL) {
		return;
	}
	jpeg_destroy_decompress(&s->cinfo);
	free(s);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Available reports whether this build can decode JPEG files (true when
// built with cgo).
func Available() bool { return true }

// Decode decodes a JPEG file held in data. See the package comment for the
// exact decoder settings. maxPixels bounds width×height (0: no bound beyond
// libjpeg's own 65500×65500).
//
// Decode is safe for concurrent use; it keeps no reference to data.
func Decode(data []byte, order Order, maxPixels int) (*Result, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("libjpeg: %w: empty input", ErrCorrupt)
	}
	s := C.mlpj_new()
	if s == nil {
		return nil, fmt.Errorf("libjpeg: out of memory")
	}
	defer C.mlpj_free(s)
	if s.cinfo.global_state == 0 {
		return nil, fmt.Errorf("libjpeg: %s", C.GoString(&s.msg[0]))
	}
	var pin runtime.Pinner
	pin.Pin(&data[0])
	defer pin.Unpin()

	rgb := C.int(0)
	if order == RGB {
		rgb = 1
	}
	if C.mlpj_header(s, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), rgb) != 0 {
		return nil, fmt.Errorf("libjpeg: %w: %s", ErrCorrupt, C.GoString(&s.msg[0]))
	}
	w, h := int(C.mlpj_width(s)), int(C.mlpj_height(s))
	cn := int(C.mlpj_out_components(s))
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("libjpeg: %w: image size %dx%d", ErrCorrupt, w, h)
	}
	if maxPixels > 0 && w*h > maxPixels {
		return nil, fmt.Errorf("libjpeg: %w: %dx%d pixels, the limit is %d", ErrTooLarge, w, h, maxPixels)
	}
	res := &Result{Width: w, Height: h, Channels: cn, Components: int(C.mlpj_components(s))}
	if s.app1 != nil && s.app1_len > 0 {
		res.APP1 = C.GoBytes(unsafe.Pointer(s.app1), C.int(s.app1_len))
	}
	res.Pix = make([]byte, w*h*cn)
	if C.mlpj_read(s, (*C.uchar)(unsafe.Pointer(&res.Pix[0])), C.size_t(w*cn)) != 0 {
		return nil, fmt.Errorf("libjpeg: %w: %s", ErrCorrupt, C.GoString(&s.msg[0]))
	}
	if s.corrupt != 0 {
		return nil, fmt.Errorf("libjpeg: %w: %s", ErrCorrupt, C.GoString(&s.msg[0]))
	}
	if s.warned != 0 {
		res.Warning = C.GoString(&s.warnmsg[0])
	}
	return res, nil
}
