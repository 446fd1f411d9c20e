package preprocess

// exifOrientation returns the EXIF orientation (1..8, 1 = as stored) that
// OpenCV 4.x's JpegDecoder + ExifReader find in the payload of the first
// APP1 marker, reproducing its quirks: the payload is parsed from byte 6
// whatever its signature, only "II" selects little-endian (anything else is
// read big-endian), the TIFF magic 42 is required, IFD0 entries are read in
// order and parsing stops at the first entry whose value lies outside the
// payload (entries read before it still count), and the first orientation
// tag wins. Any other value than 2..8 means no change.
func exifOrientation(app1 []byte) int {
	if len(app1) <= 6 {
		return 1
	}
	r := exifReader{d: app1[6:]}
	r.le = len(r.d) >= 1 && r.d[0] == 'I' && (len(r.d) == 1 || r.d[1] == 'I')
	o, ok := r.orientation()
	if !ok || o < 1 || o > 8 {
		return 1
	}
	return o
}

type exifReader struct {
	d  []byte
	le bool
}

// Tags OpenCV's ExifReader decodes (and whose values can end the parse).
const (
	tagImageDescription = 0x010E
	tagMake             = 0x010F
	tagModel            = 0x0110
	tagOrientation      = 0x0112
	tagXResolution      = 0x011A
	tagYResolution      = 0x011B
	tagResolutionUnit   = 0x0128
	tagSoftware         = 0x0131
	tagDateTime         = 0x0132
	tagWhitePoint       = 0x013E
	tagPrimaryChrom     = 0x013F
	tagYCbCrCoeffs      = 0x0211
	tagYCbCrPositioning = 0x0213
	tagRefBlackWhite    = 0x0214
	tagCopyright        = 0x8298
)

func (r *exifReader) u16(off uint64) (uint64, bool) {
	if off+1 >= uint64(len(r.d)) {
		return 0, false
	}
	a, b := uint64(r.d[off]), uint64(r.d[off+1])
	if r.le {
		return a | b<<8, true
	}
	return a<<8 | b, true
}

func (r *exifReader) u32(off uint64) (uint64, bool) {
	if off+3 >= uint64(len(r.d)) {
		return 0, false
	}
	a, b, c, d := uint64(r.d[off]), uint64(r.d[off+1]), uint64(r.d[off+2]), uint64(r.d[off+3])
	if r.le {
		return a | b<<8 | c<<16 | d<<24, true
	}
	return a<<24 | b<<16 | c<<8 | d, true
}

// rationals checks that n unsigned rationals can be read from the offset
// stored in the entry at off.
func (r *exifReader) rationals(off uint64, n int) bool {
	p, ok := r.u32(off + 8)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		if _, ok := r.u32(p + uint64(8*i)); !ok {
			return false
		}
		if _, ok := r.u32(p + uint64(8*i) + 4); !ok {
			return false
		}
	}
	return true
}

func (r *exifReader) str(off uint64) bool {
	size, ok := r.u32(off + 4)
	if !ok {
		return false
	}
	dataOff := uint64(8)
	if size > 4 {
		if dataOff, ok = r.u32(off + 8); !ok {
			return false
		}
	}
	n := uint64(len(r.d))
	return dataOff <= n && dataOff+size <= n
}

func (r *exifReader) orientation() (int, bool) {
	mark, ok := r.u16(2)
	if !ok || mark != 0x2A {
		return 0, false
	}
	off, ok := r.u32(4)
	if !ok {
		return 0, false
	}
	n, ok := r.u16(off)
	if !ok {
		return 0, false
	}
	off += 2
	for i := uint64(0); i < n; i, off = i+1, off+12 {
		tag, ok := r.u16(off)
		if !ok {
			return 0, false
		}
		switch tag {
		case tagOrientation:
			v, ok := r.u16(off + 8)
			return int(v), ok
		case tagImageDescription, tagMake, tagModel, tagSoftware, tagDateTime, tagCopyright:
			ok = r.str(off)
		case tagXResolution, tagYResolution:
			ok = r.rationals(off, 1)
		case tagWhitePoint:
			ok = r.rationals(off, 2)
		case tagPrimaryChrom:
			ok = r.rationals(off, 6)
		case tagYCbCrCoeffs:
			ok = r.rationals(off, 3)
		case tagRefBlackWhite:
			ok = r.rationals(off, 6)
		case tagResolutionUnit, tagYCbCrPositioning:
			_, ok = r.u16(off + 8)
		}
		if !ok {
			return 0, false
		}
	}
	return 0, false
}

// applyOrientation returns m transformed as OpenCV's ApplyExifOrientation
// does for orientation o (2..8).
func applyOrientation(m *Image, o int) *Image {
	w, h, cn := m.Width, m.Height, m.Channels
	transpose := o >= 5
	ow, oh := w, h
	if transpose {
		ow, oh = h, w
	}
	// After the optional transpose, flip horizontally (2, 3, 6, 7) and/or
	// vertically (3, 4, 7, 8).
	flipX := o == 2 || o == 3 || o == 6 || o == 7
	flipY := o == 3 || o == 4 || o == 7 || o == 8
	out := NewImage(ow, oh, cn)
	for y := 0; y < oh; y++ {
		ty := y
		if flipY {
			ty = oh - 1 - y
		}
		for x := 0; x < ow; x++ {
			tx := x
			if flipX {
				tx = ow - 1 - x
			}
			sx, sy := tx, ty
			if transpose {
				sx, sy = ty, tx
			}
			copy(out.Pix[(y*ow+x)*cn:(y*ow+x+1)*cn], m.Pix[(sy*w+sx)*cn:(sy*w+sx+1)*cn])
		}
	}
	return out
}
