#!/usr/bin/python3
"""Generates the golden data of the preprocess tests with OpenCV itself.

Test tooling, not part of the Go build. Needs Debian's python3-opencv,
python3-numpy and python3-pil (/usr/bin/python3) and the photos of Debian's
opencv-doc package:

    apt-get download opencv-doc && dpkg -x opencv-doc_*.deb /tmp/ocvdoc
    /usr/bin/python3 preprocess/testdata/gen_golden.py \
        /tmp/ocvdoc/usr/share/doc/opencv-doc/examples/data

It (re)writes, next to itself:
  images/*.jpg       the photos used (copied or derived from the originals)
  resize/*.bin       small raw uint8 HWC sources for the resize tables
  golden.json        what cv2 returns for them, as SHA-256 of the raw arrays:
                     cv2.imread, cv2.resize (INTER_AREA, INTER_LINEAR on
                     uint8 and float32), the ResNet50 reference
                     pre_process_vgg and the RetinaNet reference
                     pre_process_openimages_retinanet
  resnet50_*.npy     two full ResNet50 pipeline outputs (np.save)
"""
import hashlib
import io
import json
import os
import shutil
import struct
import sys

import cv2
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
IMG = os.path.join(HERE, "images")
RES = os.path.join(HERE, "resize")


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


# --- the reference pipelines (python/dataset.py of mlcommons/inference) ---

def center_crop(img, out_height, out_width):
    height, width, _ = img.shape
    left = int((width - out_width) / 2)
    right = int((width + out_width) / 2)
    top = int((height - out_height) / 2)
    bottom = int((height + out_height) / 2)
    return img[top:bottom, left:right]


def resize_with_aspectratio(img, out_height, out_width, scale=87.5, inter_pol=cv2.INTER_LINEAR):
    height, width, _ = img.shape
    new_height = int(100. * out_height / scale)
    new_width = int(100. * out_width / scale)
    if height > width:
        w = new_width
        h = int(new_height * height / width)
    else:
        h = new_height
        w = int(new_width * width / height)
    return cv2.resize(img, (w, h), interpolation=inter_pol)


def pre_process_vgg(img, dims=(224, 224, 3), need_transpose=True):
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    output_height, output_width, _ = dims
    img = resize_with_aspectratio(img, output_height, output_width, inter_pol=cv2.INTER_AREA)
    img = center_crop(img, output_height, output_width)
    img = np.asarray(img, dtype='float32')
    means = np.array([123.68, 116.78, 103.94], dtype=np.float32)
    img -= means
    if need_transpose:
        img = img.transpose([2, 0, 1])
    return img


def maybe_resize(img, dims):
    img = np.array(img, dtype=np.float32)
    if len(img.shape) < 3 or img.shape[2] != 3:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    if dims is not None:
        im_height, im_width, _ = dims
        img = cv2.resize(img, (im_width, im_height), interpolation=cv2.INTER_LINEAR)
    return img


def pre_process_openimages_retinanet(img, dims=(800, 800, 3), need_transpose=True):
    img = maybe_resize(img, dims)
    img /= 255.
    if need_transpose:
        img = img.transpose([2, 0, 1])
    return img


# --- crafted files ---

def exif_app1(entries, little=True, prefix=b"Exif\x00\x00"):
    """APP1 segment with a TIFF header and one IFD of (tag, type, count, value bytes)."""
    e = "<" if little else ">"
    tiff = (b"II" if little else b"MM") + struct.pack(e + "HI", 42, 8)
    ifd = struct.pack(e + "H", len(entries))
    for tag, typ, count, val in entries:
        ifd += struct.pack(e + "HHI", tag, typ, count) + val
    ifd += struct.pack(e + "I", 0)
    payload = prefix + tiff + ifd
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def short_val(v, little=True):
    return struct.pack(("<" if little else ">") + "HH", v, 0)


def with_segments(jpeg, *segs):
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + b"".join(segs) + jpeg[2:]


def write(name, data):
    with open(os.path.join(IMG, name), "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    for d in (IMG, RES):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    # Real photos, as shipped.
    for name in ["messi5.jpg",        # 548x342 4:2:0
                 "home.jpg",          # 512x384 4:2:0, 384 -> 256 (scale 1.5)
                 "baboon.jpg",        # 512x512 4:2:2, exact 2x
                 "Blender_Suzanne1.jpg",  # 640x480 progressive 4:4:4
                 "left01.jpg",        # 640x480 grayscale
                 "HappyFish.jpg",     # 259x194: enlarged
                 "blox.jpg",          # 256x256: no resize
                 "starry_night.jpg",  # 752x600 4:4:4 baseline, XMP APP1
                 "squirrel_cls.jpg",  # 535x426 with an EXIF APP1
                 ]:
        shutil.copy(os.path.join(src, name), os.path.join(IMG, name))

    messi = open(os.path.join(src, "messi5.jpg"), "rb").read()
    fish = open(os.path.join(src, "HappyFish.jpg"), "rb").read()
    baboon = cv2.imread(os.path.join(src, "baboon.jpg"))
    fruits = cv2.imread(os.path.join(src, "fruits.jpg"))

    # Derived files written by OpenCV's own encoder.
    big = cv2.resize(baboon, (768, 768), interpolation=cv2.INTER_CUBIC)
    write("baboon768.jpg", cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())  # exact 3x
    write("fruits_prog.jpg", cv2.imencode(".jpg", fruits, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes())
    write("fruits_rst.jpg", cv2.imencode(".jpg", fruits, [cv2.IMWRITE_JPEG_RST_INTERVAL, 3])[1].tobytes())
    tall = cv2.resize(fruits, (300, 700), interpolation=cv2.INTER_AREA)  # portrait, H > W
    write("fruits_tall.jpg", cv2.imencode(".jpg", tall)[1].tobytes())
    tiny = cv2.resize(fruits, (120, 90), interpolation=cv2.INTER_AREA)  # enlarged a lot
    write("fruits_tiny.jpg", cv2.imencode(".jpg", tiny)[1].tobytes())
    # 4:4:4 and CMYK written by Pillow.
    pil = Image.open(os.path.join(src, "fruits.jpg"))
    b = io.BytesIO(); pil.save(b, "JPEG", quality=90, subsampling=0); write("fruits_444.jpg", b.getvalue())
    b = io.BytesIO(); pil.convert("CMYK").save(b, "JPEG", quality=90); write("fruits_cmyk.jpg", b.getvalue())

    # EXIF orientation variants.
    for o in range(1, 9):
        write("fish_exif%d.jpg" % o, with_segments(fish, exif_app1([(0x0112, 3, 1, short_val(o))])))
    write("messi_exif6_be.jpg", with_segments(messi, exif_app1([(0x0112, 3, 1, short_val(6, False))], little=False)))
    write("messi_exif8.jpg", with_segments(messi, exif_app1([(0x0112, 3, 1, short_val(8))])))
    xmp = b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta/>"
    write("fish_xmp_then_exif6.jpg", with_segments(
        fish, b"\xff\xe1" + struct.pack(">H", len(xmp) + 2) + xmp, exif_app1([(0x0112, 3, 1, short_val(6))])))
    # A Make string pointing outside the payload before the orientation tag:
    # OpenCV stops parsing there and never sees the orientation.
    write("fish_exif6_badmake.jpg", with_segments(fish, exif_app1(
        [(0x010F, 2, 100, struct.pack("<I", 0xFFFF)), (0x0112, 3, 1, short_val(6))])))
    # ... and after it: the orientation is kept.
    write("fish_exif6_badmodel_after.jpg", with_segments(fish, exif_app1(
        [(0x0112, 3, 1, short_val(6)), (0x0110, 2, 100, struct.pack("<I", 0xFFFF))])))
    write("fish_exif9.jpg", with_segments(fish, exif_app1([(0x0112, 3, 1, short_val(9))])))
    # Junk bytes between two header segments: libjpeg warns ("extraneous
    # bytes before marker") and decodes normally; so must we.
    app0_end = 4 + struct.unpack(">H", fish[4:6])[0]
    write("fish_extraneous.jpg", fish[:app0_end] + b"\x00\x13\x37" + fish[app0_end:])

    golden = {"opencv": cv2.__version__, "images": {}, "resize": [], "resize_f32": []}
    for name in sorted(os.listdir(IMG)):
        img = cv2.imread(os.path.join(IMG, name))
        assert img is not None, name
        entry = {"width": img.shape[1], "height": img.shape[0], "imread_bgr": sha(img)}
        entry["resnet50"] = sha(pre_process_vgg(img))
        if name in ("messi5.jpg", "HappyFish.jpg", "baboon768.jpg", "fruits_tall.jpg", "left01.jpg"):
            entry["retinanet"] = sha(pre_process_openimages_retinanet(img))
        golden["images"][name] = entry
    for name in ("messi5.jpg", "fish_exif6.jpg"):
        np.save(os.path.join(HERE, "resnet50_" + name.replace(".jpg", ".npy")),
                pre_process_vgg(cv2.imread(os.path.join(IMG, name))))

    # Resize tables on decoded photos and on random small images.
    sizes = [(256, 256), (341, 256), (256, 341), (274, 171), (100, 75), (37, 23), (1, 1), (3, 500),
             (800, 800), (1000, 700), (548, 171), (274, 342), (600, 200), (1096, 684), (549, 343),
             (183, 114), (137, 114), (40, 300)]
    for name in ("messi5.jpg", "left01.jpg", "baboon.jpg"):
        img = cv2.imread(os.path.join(IMG, name))
        h, w = img.shape[:2]
        extra = [(w // 2, h // 2), (w // 3, h // 3), (w // 4, h // 4), (w // 2, h), (w, h // 2), (w - 1, h - 1), (w + 1, h + 1)]
        for dw, dh in sizes + extra:
            golden["resize"].append({"src": name, "w": dw, "h": dh,
                                     "area": sha(cv2.resize(img, (dw, dh), interpolation=cv2.INTER_AREA)),
                                     "linear": sha(cv2.resize(img, (dw, dh), interpolation=cv2.INTER_LINEAR))})
            golden["resize_f32"].append({"src": name, "w": dw, "h": dh,
                                         "linear": sha(cv2.resize(img.astype(np.float32), (dw, dh), interpolation=cv2.INTER_LINEAR))})
    rng = np.random.default_rng(20260522)
    for i, (w, h, cn) in enumerate([(64, 48, 3), (63, 47, 1), (50, 30, 4), (17, 13, 2), (9, 7, 3)]):
        a = rng.integers(0, 256, size=(h, w, cn), dtype=np.uint8)
        name = "rand%d_%dx%dx%d.bin" % (i, w, h, cn)
        a.tofile(os.path.join(RES, name))
        for dw, dh in [(w // 2, h // 2), (w // 3, h // 3), (w * 2, h * 2), (w + 3, h - 2), (w - 5, h + 7),
                       (max(1, w * 2 // 3), max(1, h * 2 // 3)), (max(1, w * 3 // 7), max(1, h * 5 // 9)),
                       (w // 2, h), (w * 3, h), (1, h), (w, 1), (5, 3)]:
            golden["resize"].append({"src": "resize/" + name, "w": dw, "h": dh,
                                     "area": sha(cv2.resize(a, (dw, dh), interpolation=cv2.INTER_AREA)),
                                     "linear": sha(cv2.resize(a, (dw, dh), interpolation=cv2.INTER_LINEAR))})
            golden["resize_f32"].append({"src": "resize/" + name, "w": dw, "h": dh,
                                         "linear": sha(cv2.resize(a.astype(np.float32), (dw, dh), interpolation=cv2.INTER_LINEAR))})

    # Sweeps over many sizes, sources cropped from a decoded photo (top-left
    # corner): the ResNet50 resize (INTER_AREA to the short-side-256 size)
    # and the RetinaNet resize (float INTER_LINEAR to 800x800).
    golden["sweep_src"] = "starry_night.jpg"
    photo = cv2.imread(os.path.join(IMG, golden["sweep_src"]))
    ph, pw = photo.shape[:2]
    golden["sweep_area"] = []
    for _ in range(150):
        w, h = int(rng.integers(60, pw + 1)), int(rng.integers(60, ph + 1))
        crop = photo[:h, :w]
        if h > w:
            dw, dh = 256, int(256 * h / w)
        else:
            dw, dh = int(256 * w / h), 256
        golden["sweep_area"].append({"w": w, "h": h, "dw": dw, "dh": dh,
                                     "area": sha(cv2.resize(crop, (dw, dh), interpolation=cv2.INTER_AREA))})
    golden["sweep_linear_f32"] = []
    for _ in range(25):
        w, h = int(rng.integers(60, pw + 1)), int(rng.integers(60, ph + 1))
        crop = photo[:h, :w].astype(np.float32)
        golden["sweep_linear_f32"].append({"w": w, "h": h, "dw": 800, "dh": 800,
                                           "linear": sha(cv2.resize(crop, (800, 800), interpolation=cv2.INTER_LINEAR))})

    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
