package preprocess

import (
	"fmt"
	"math"
)

// The resize functions reproduce OpenCV 4.x's cv::resize (imgproc
// resize.cpp, CPU path without IPP) bit for bit:
//
//   - dsize == ssize: a copy.
//   - INTER_AREA with both scales ≥ 1 and both integral ("area fast"): the
//     integer box average; for 2×2 on 1, 3 or 4 channels it rounds as
//     (sum+2)>>2, otherwise as cvRound(float(sum)*(1/area)).
//   - INTER_AREA with both scales ≥ 1 otherwise: OpenCV's float32 area
//     decimation (computeResizeAreaTab weights, horizontal then vertical
//     float32 accumulation in OpenCV's order, cvRound at the end).
//   - INTER_AREA with a scale < 1 (enlarging) and INTER_LINEAR: the 2-tap
//     separable filter with OpenCV's coefficient formulas; on uint8 in
//     fixed point with 11-bit weights (INTER_RESIZE_COEF_BITS) and OpenCV's
//     ((b0*(S0>>4))>>16 + (b1*(S1>>4))>>16 + 2)>>2 vertical step, on float32
//     in float32. Out-of-range columns get clamped weights; out-of-range rows
//     only get a clamped row index, their weights stay as computed.
//   - INTER_LINEAR with both scales exactly 2 switches to the area fast path,
//     as OpenCV does.
//
// Scales are computed as OpenCV does: inv = dst/src in float64, scale =
// 1/inv. Every float32 product is converted to float32 explicitly so that
// the Go compiler cannot fuse it with the following add into an FMA (the
// OpenCV builds the reference uses run this code without FMA).

const (
	interLinear = iota
	interArea
)

const (
	resizeCoefBits  = 11
	resizeCoefScale = 1 << resizeCoefBits
)

// ResizeArea returns m resized to w×h like cv2.resize(m, (w, h),
// interpolation=cv2.INTER_AREA).
func ResizeArea(m *Image, w, h int) (*Image, error) {
	return resizeU8(m, w, h, rect{0, 0, w, h}, interArea)
}

// ResizeAreaCrop returns the cw×ch window at (x, y) of ResizeArea(m, w, h)
// without computing the rest: the same values as resizing then cropping,
// at a fraction of the cost when the window is small.
func ResizeAreaCrop(m *Image, w, h, x, y, cw, ch int) (*Image, error) {
	return resizeU8(m, w, h, rect{x, y, cw, ch}, interArea)
}

// ResizeLinear returns m resized to w×h like cv2.resize(m, (w, h),
// interpolation=cv2.INTER_LINEAR) on a uint8 image.
func ResizeLinear(m *Image, w, h int) (*Image, error) {
	return resizeU8(m, w, h, rect{0, 0, w, h}, interLinear)
}

// ResizeLinearF32 returns m resized to w×h like cv2.resize(m, (w, h),
// interpolation=cv2.INTER_LINEAR) on a float32 image.
func ResizeLinearF32(m *ImageF32, w, h int) (*ImageF32, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("%w: resize to %dx%d", ErrBadImage, w, h)
	}
	dst := NewImageF32(w, h, m.Channels)
	if w == m.Width && h == m.Height {
		copy(dst.Pix, m.Pix)
		return dst, nil
	}
	win := rect{0, 0, w, h}
	sc := newScales(m.Width, m.Height, w, h)
	if sc.fastX == 2 && sc.fastY == 2 {
		areaFastF32(m, dst, w, win)
		return dst, nil
	}
	tab := linearTables(m.Width, m.Height, w, h, m.Channels, sc, false)
	linearF32(m, dst, tab, win)
	return dst, nil
}

// rect is an output window: columns [x, x+w), rows [y, y+h) of the full
// resized image.
type rect struct{ x, y, w, h int }

func resizeU8(m *Image, w, h int, win rect, interp int) (*Image, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("%w: resize to %dx%d", ErrBadImage, w, h)
	}
	if win.x < 0 || win.y < 0 || win.w <= 0 || win.h <= 0 || win.x+win.w > w || win.y+win.h > h {
		return nil, fmt.Errorf("%w: window %dx%d at (%d,%d) outside %dx%d", ErrBadImage, win.w, win.h, win.x, win.y, w, h)
	}
	if w == m.Width && h == m.Height {
		return Crop(m, win.x, win.y, win.w, win.h)
	}
	dst := NewImage(win.w, win.h, m.Channels)
	sc := newScales(m.Width, m.Height, w, h)
	if interp == interLinear && sc.fastX == 2 && sc.fastY == 2 {
		interp = interArea
	}
	if interp == interArea && sc.x >= 1 && sc.y >= 1 {
		if sc.fastX > 0 {
			areaFastU8(m, dst, sc.fastX, sc.fastY, win)
		} else {
			areaU8(m, dst, w, h, sc, win)
		}
		return dst, nil
	}
	tab := linearTables(m.Width, m.Height, w, h, m.Channels, sc, interp == interArea)
	linearU8(m, dst, tab, win)
	return dst, nil
}

type scales struct {
	x, y       float64 // src/dst as OpenCV computes it: 1/(dst/src)
	invX, invY float64 // dst/src
	// fastX, fastY are the integral scales when both scales are integers
	// (OpenCV's is_area_fast), else 0.
	fastX, fastY int
}

func newScales(sw, sh, dw, dh int) scales {
	var s scales
	s.invX = float64(dw) / float64(sw)
	s.invY = float64(dh) / float64(sh)
	s.x = 1 / s.invX
	s.y = 1 / s.invY
	ix, iy := cvRound64(s.x), cvRound64(s.y)
	const dblEpsilon = 2.220446049250313e-16
	if math.Abs(s.x-float64(ix)) < dblEpsilon && math.Abs(s.y-float64(iy)) < dblEpsilon {
		s.fastX, s.fastY = ix, iy
	}
	return s
}

// cvRound64 is OpenCV's cvRound / saturate_cast<int>(double): round half to
// even, saturated to int32.
func cvRound64(v float64) int {
	r := math.RoundToEven(v)
	if r > math.MaxInt32 {
		return math.MaxInt32
	}
	if r < math.MinInt32 {
		return math.MinInt32
	}
	return int(r)
}

// satU8 is saturate_cast<uchar>(float): cvRound (half to even) then clamp
// to 0..255. Adding 1.5·2^23 in float32 rounds to an integer half to even
// (exact for |v| < 2^22, which the clamp guarantees).
func satU8(v float32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	const magic = 12582912 // 1.5 * 2^23
	return uint8(int32(v+magic) - magic)
}

// satI16 is saturate_cast<short>(float).
func satI16(v float32) int32 {
	r := math.RoundToEven(float64(v))
	if r <= math.MinInt16 {
		return math.MinInt16
	}
	if r >= math.MaxInt16 {
		return math.MaxInt16
	}
	return int32(r)
}

// areaFastU8 is OpenCV's resizeAreaFast_<uchar, int> for integral scales
// sx×sy (the image sizes are exact multiples), over the output window win.
func areaFastU8(src, dst *Image, sx, sy int, win rect) {
	cn := src.Channels
	sstride, dstride := src.Stride(), dst.Stride()
	if sx == 2 && sy == 2 && (cn == 1 || cn == 3 || cn == 4) {
		for oy := 0; oy < win.h; oy++ {
			dy := win.y + oy
			r0 := src.Pix[2*dy*sstride : (2*dy+1)*sstride]
			r1 := src.Pix[(2*dy+1)*sstride : (2*dy+2)*sstride]
			d := dst.Pix[oy*dstride : (oy+1)*dstride]
			for ox := 0; ox < win.w; ox++ {
				s := 2 * (win.x + ox) * cn
				for c := 0; c < cn; c++ {
					i := s + c
					d[ox*cn+c] = uint8((int(r0[i]) + int(r0[i+cn]) + int(r1[i]) + int(r1[i+cn]) + 2) >> 2)
				}
			}
		}
		return
	}
	scale := float32(1) / float32(sx*sy)
	for oy := 0; oy < win.h; oy++ {
		dy := win.y + oy
		d := dst.Pix[oy*dstride : (oy+1)*dstride]
		for ox := 0; ox < win.w; ox++ {
			x := win.x + ox
			for c := 0; c < cn; c++ {
				sum := 0
				for ky := 0; ky < sy; ky++ {
					row := src.Pix[(dy*sy+ky)*sstride:]
					for kx := 0; kx < sx; kx++ {
						sum += int(row[(x*sx+kx)*cn+c])
					}
				}
				d[ox*cn+c] = satU8(float32(sum) * scale)
			}
		}
	}
}

// areaFastF32 is OpenCV's resizeAreaFast_<float, float> for 2×2, the path
// INTER_LINEAR takes on float32 images halved exactly. Its vector code
// (1 or 4 channels, groups of 4 floats of the full output row) sums
// (a+b)+(c+d); the scalar code sums ((a+b)+c)+d.
func areaFastF32(src, dst *ImageF32, fullW int, win rect) {
	cn := src.Channels
	sstride, dstride := src.Width*cn, dst.Width*cn
	w := fullW * cn
	vecEnd := 0
	if cn == 1 || cn == 4 {
		vecEnd = w - w%4
	}
	for oy := 0; oy < win.h; oy++ {
		dy := win.y + oy
		r0 := src.Pix[2*dy*sstride : (2*dy+1)*sstride]
		r1 := src.Pix[(2*dy+1)*sstride : (2*dy+2)*sstride]
		d := dst.Pix[oy*dstride : (oy+1)*dstride]
		for o := range d {
			dx := win.x*cn + o
			x, c := dx/cn, dx%cn
			i := 2*x*cn + c
			a, b, e, f := r0[i], r0[i+cn], r1[i], r1[i+cn]
			var sum float32
			if dx < vecEnd {
				sum = float32(a+b) + float32(e+f)
			} else {
				sum = float32(float32(a+b)+e) + f
			}
			d[o] = float32(sum * 0.25)
		}
	}
}

type decimateAlpha struct {
	si, di int
	alpha  float32
}

// computeResizeAreaTab mirrors OpenCV's function of the same name.
func computeResizeAreaTab(ssize, dsize, cn int, scale float64) []decimateAlpha {
	tab := make([]decimateAlpha, 0, 2*ssize)
	for dx := 0; dx < dsize; dx++ {
		fsx1 := float64(dx) * scale
		fsx2 := fsx1 + scale
		cellWidth := math.Min(scale, float64(ssize)-fsx1)
		sx1 := int(math.Ceil(fsx1))
		sx2 := int(math.Floor(fsx2))
		sx2 = min(sx2, ssize-1)
		sx1 = min(sx1, sx2)
		if float64(sx1)-fsx1 > 1e-3 {
			tab = append(tab, decimateAlpha{si: (sx1 - 1) * cn, di: dx * cn, alpha: float32((float64(sx1) - fsx1) / cellWidth)})
		}
		for sx := sx1; sx < sx2; sx++ {
			tab = append(tab, decimateAlpha{si: sx * cn, di: dx * cn, alpha: float32(1.0 / cellWidth)})
		}
		if fsx2-float64(sx2) > 1e-3 {
			tab = append(tab, decimateAlpha{si: sx2 * cn, di: dx * cn,
				alpha: float32(math.Min(math.Min(fsx2-float64(sx2), 1), cellWidth) / cellWidth)})
		}
	}
	return tab
}

// areaU8 is OpenCV's ResizeArea_Invoker<uchar, float> for a w×h output,
// computed over the window win only (each output value depends only on
// its own table entries, accumulated in OpenCV's order).
func areaU8(src, dst *Image, w, h int, sc scales, win rect) {
	cn := src.Channels
	x0, x1 := win.x*cn, (win.x+win.w)*cn
	var xtab []decimateAlpha
	for _, e := range computeResizeAreaTab(src.Width, w, cn, sc.x) {
		if e.di >= x0 && e.di < x1 {
			e.di -= x0
			xtab = append(xtab, e)
		}
	}
	var ytab []decimateAlpha
	for _, e := range computeResizeAreaTab(src.Height, h, 1, sc.y) {
		if e.di >= win.y && e.di < win.y+win.h {
			e.di -= win.y
			ytab = append(ytab, e)
		}
	}
	width := win.w * cn
	buf := make([]float32, width)
	sum := make([]float32, width)
	sstride := src.Stride()
	prevDy := ytab[0].di
	lastSy := -1
	for _, yt := range ytab {
		beta, dy, sy := yt.alpha, yt.di, yt.si
		if sy != lastSy { // the same source row always gives the same buf
			areaRow(buf, src.Pix[sy*sstride:(sy+1)*sstride], xtab, cn)
			lastSy = sy
		}
		if dy != prevDy {
			d := dst.Pix[prevDy*width : (prevDy+1)*width]
			for i := range d {
				d[i] = satU8(sum[i])
				sum[i] = float32(beta * buf[i])
			}
			prevDy = dy
		} else {
			for i := range sum {
				sum[i] += float32(beta * buf[i])
			}
		}
	}
	d := dst.Pix[prevDy*width : (prevDy+1)*width]
	for i := range d {
		d[i] = satU8(sum[i])
	}
}

// areaRow is the horizontal pass of areaU8: buf[di+c] accumulates
// row[si+c]*alpha over the table, in table order, from zero.
func areaRow(buf []float32, row []uint8, xtab []decimateAlpha, cn int) {
	clear(buf)
	if cn == 3 {
		for _, xt := range xtab {
			a := xt.alpha
			s := row[xt.si : xt.si+3 : xt.si+3]
			b := buf[xt.di : xt.di+3 : xt.di+3]
			b[0] += float32(float32(s[0]) * a)
			b[1] += float32(float32(s[1]) * a)
			b[2] += float32(float32(s[2]) * a)
		}
		return
	}
	for _, xt := range xtab {
		a := xt.alpha
		s := row[xt.si : xt.si+cn]
		b := buf[xt.di : xt.di+cn]
		for c := range b {
			b[c] += float32(float32(s[c]) * a)
		}
	}
}

// linTab holds the 2-tap coefficient tables of OpenCV's generic resize.
type linTab struct {
	xofs   []int     // per output element (dx*cn+c): source element index
	alpha  []float32 // per output element: weights (2 each)
	ialpha []int32   // per output element: fixed-point weights (2 each)
	xmax   int       // output elements from xmax on copy S[xofs]
	yofs   []int     // per output row: first source row (unclamped)
	beta   []float32 // per output row: weights (2)
	ibeta  []int32
}

func linearTables(sw, sh, dw, dh, cn int, sc scales, areaMode bool) *linTab {
	t := &linTab{
		xofs: make([]int, dw*cn), alpha: make([]float32, 2*dw*cn), ialpha: make([]int32, 2*dw*cn),
		yofs: make([]int, dh), beta: make([]float32, 2*dh), ibeta: make([]int32, 2*dh),
	}
	xmax := dw
	for dx := 0; dx < dw; dx++ {
		var fx float32
		var sx int
		if !areaMode {
			fx = float32((float64(dx)+0.5)*sc.x - 0.5)
			sx = int(math.Floor(float64(fx)))
			fx -= float32(sx)
		} else {
			sx = int(math.Floor(float64(dx) * sc.x))
			fx = float32(float64(dx+1) - float64(sx+1)*sc.invX)
			if fx <= 0 {
				fx = 0
			} else {
				fx -= float32(math.Floor(float64(fx)))
			}
		}
		if sx < 0 {
			fx, sx = 0, 0
		}
		if sx+1 >= sw {
			xmax = min(xmax, dx)
			if sx >= sw-1 {
				fx, sx = 0, sw-1
			}
		}
		a0, a1 := 1-fx, fx
		for c := 0; c < cn; c++ {
			e := dx*cn + c
			t.xofs[e] = sx*cn + c
			t.alpha[2*e], t.alpha[2*e+1] = a0, a1
			t.ialpha[2*e], t.ialpha[2*e+1] = satI16(a0*resizeCoefScale), satI16(a1*resizeCoefScale)
		}
	}
	t.xmax = xmax * cn
	for dy := 0; dy < dh; dy++ {
		var fy float32
		var sy int
		if !areaMode {
			fy = float32((float64(dy)+0.5)*sc.y - 0.5)
			sy = int(math.Floor(float64(fy)))
			fy -= float32(sy)
		} else {
			sy = int(math.Floor(float64(dy) * sc.y))
			fy = float32(float64(dy+1) - float64(sy+1)*sc.invY)
			if fy <= 0 {
				fy = 0
			} else {
				fy -= float32(math.Floor(float64(fy)))
			}
		}
		t.yofs[dy] = sy
		b0, b1 := 1-fy, fy
		t.beta[2*dy], t.beta[2*dy+1] = b0, b1
		t.ibeta[2*dy], t.ibeta[2*dy+1] = satI16(b0*resizeCoefScale), satI16(b1*resizeCoefScale)
	}
	return t
}

// loadRows makes rows[k] hold the horizontally resized source row
// clip(y0+k), reusing rows computed for the previous output row as OpenCV
// does (which changes nothing in the results: the same row always gives the
// same values).
func loadRows[T int32 | float32](rows *[2][]T, rowY *[2]int, y0, h int, hresize func([]T, int)) {
	sy0, sy1 := clipRow(y0, h), clipRow(y0+1, h)
	if rowY[0] != sy0 {
		if rowY[1] == sy0 {
			rows[0], rows[1] = rows[1], rows[0]
			rowY[0], rowY[1] = rowY[1], rowY[0]
		} else {
			hresize(rows[0], sy0)
			rowY[0] = sy0
		}
	}
	if rowY[1] != sy1 {
		if sy1 == rowY[0] {
			copy(rows[1], rows[0])
		} else {
			hresize(rows[1], sy1)
		}
		rowY[1] = sy1
	}
}

func clipRow(y, h int) int {
	if y < 0 {
		return 0
	}
	if y >= h {
		return h - 1
	}
	return y
}

// hresizeU8 is HResizeLinear<uchar, int, short, 2048> over output
// elements [e0, e0+len(out)).
func hresizeU8(row []uint8, out []int32, t *linTab, cn, e0 int) {
	for o := range out {
		e := e0 + o
		sx := t.xofs[e]
		if e < t.xmax {
			out[o] = int32(row[sx])*t.ialpha[2*e] + int32(row[sx+cn])*t.ialpha[2*e+1]
		} else {
			out[o] = int32(row[sx]) * resizeCoefScale
		}
	}
}

// linearU8 is resizeGeneric_ with the uint8 fixed-point 2-tap filter, over
// the output window win.
func linearU8(src, dst *Image, t *linTab, win rect) {
	cn := src.Channels
	width := win.w * cn
	e0 := win.x * cn
	sstride := src.Stride()
	rows := [2][]int32{make([]int32, width), make([]int32, width)}
	rowY := [2]int{-1, -1}
	for oy := 0; oy < win.h; oy++ {
		dy := win.y + oy
		loadRows(&rows, &rowY, t.yofs[dy], src.Height, func(dst []int32, sy int) {
			hresizeU8(src.Pix[sy*sstride:(sy+1)*sstride], dst, t, cn, e0)
		})
		b0, b1 := t.ibeta[2*dy], t.ibeta[2*dy+1]
		s0, s1 := rows[0], rows[1]
		d := dst.Pix[oy*width : (oy+1)*width]
		for x := range d {
			v := ((b0 * (s0[x] >> 4)) >> 16) + ((b1 * (s1[x] >> 4)) >> 16) + 2
			v >>= 2
			if v < 0 {
				v = 0
			} else if v > 255 {
				v = 255
			}
			d[x] = uint8(v)
		}
	}
}

// hresizeF32 is HResizeLinear<float, float, float, 1> over output elements
// [e0, e0+len(out)).
func hresizeF32(row []float32, out []float32, t *linTab, cn, e0 int) {
	for o := range out {
		e := e0 + o
		sx := t.xofs[e]
		if e < t.xmax {
			out[o] = float32(row[sx]*t.alpha[2*e]) + float32(row[sx+cn]*t.alpha[2*e+1])
		} else {
			out[o] = row[sx]
		}
	}
}

// linearF32 is resizeGeneric_ with the float32 2-tap filter, over the
// output window win.
func linearF32(src, dst *ImageF32, t *linTab, win rect) {
	cn := src.Channels
	width := win.w * cn
	e0 := win.x * cn
	sstride := src.Width * cn
	rows := [2][]float32{make([]float32, width), make([]float32, width)}
	rowY := [2]int{-1, -1}
	for oy := 0; oy < win.h; oy++ {
		dy := win.y + oy
		loadRows(&rows, &rowY, t.yofs[dy], src.Height, func(dst []float32, sy int) {
			hresizeF32(src.Pix[sy*sstride:(sy+1)*sstride], dst, t, cn, e0)
		})
		b0, b1 := t.beta[2*dy], t.beta[2*dy+1]
		s0, s1 := rows[0], rows[1]
		d := dst.Pix[oy*width : (oy+1)*width]
		for x := range d {
			d[x] = float32(s0[x]*b0) + float32(s1[x]*b1)
		}
	}
}
