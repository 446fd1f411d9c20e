# Regenerates the image-preprocessing goldens of score_test.go:
#  - pil_bicubic.bin: PIL (Pillow) Image.resize(..., Image.BICUBIC) of the
#    test pattern, the resize open_clip's eval transform applies before
#    the CLIP image tower (uint8 bytes of each case, concatenated);
#  - cv2_linear.bin: cv2.resize(..., INTER_LINEAR) of the pattern as
#    float32 in [0, 1], whose sampling (half-pixel centres, clamped at 0)
#    is torch.nn.functional.interpolate(bilinear, align_corners=False)'s,
#    the resize pytorch-fid's InceptionV3 applies (every fifth output row,
#    float32 little-endian).
# The pattern: value(y, x, c) = (x*7 + y*13 + c*29 + (x*y) % 31) % 256.
import numpy as np
import cv2
from PIL import Image

def pattern(h, w):
    y, x, c = np.meshgrid(np.arange(h), np.arange(w), np.arange(3), indexing="ij")
    return ((x * 7 + y * 13 + c * 29 + (x * y) % 31) % 256).astype(np.uint8)

with open("pil_bicubic.bin", "wb") as f:
    for (h, w), (nh, nw) in [((64, 48), (150, 110)), ((300, 260), (224, 224)), ((40, 90), (17, 33))]:
        f.write(np.asarray(Image.fromarray(pattern(h, w)).resize((nw, nh), Image.BICUBIC)).tobytes())

with open("cv2_linear.bin", "wb") as f:
    for h, w in [(64, 64), (400, 352)]:
        img = pattern(h, w).astype(np.float32) / 255
        f.write(cv2.resize(img, (299, 299), interpolation=cv2.INTER_LINEAR)[::5].astype("<f4").tobytes())

# clip_input.bin: open_clip's ViT-B/32 eval transform (torchvision Resize(224,
# BICUBIC) of the shorter side, the longer int(224 * long / short); CenterCrop
# 224 at int(round((size - 224) / 2.0)), Python's round half to even;
# ToTensor; Normalize with CLIP's mean and std) of the pattern, CHW float32,
# every fifth row, for shapes whose crop offset is 16.5 (300×261, 261×300)
# and 17.5 (300×259).
CLIP_MEAN = np.array([0.48145466, 0.4578275, 0.40821073], dtype=np.float32)
CLIP_STD = np.array([0.26862954, 0.26130258, 0.27577711], dtype=np.float32)


def clip_input(img):
    h, w = img.shape[:2]
    if w < h:
        nw, nh = 224, int(224 * h / w)
    else:
        nh, nw = 224, int(224 * w / h)
    r = np.asarray(Image.fromarray(img).resize((nw, nh), Image.BICUBIC))
    top, left = int(round((nh - 224) / 2.0)), int(round((nw - 224) / 2.0))
    c = r[top:top + 224, left:left + 224].astype(np.float32) / np.float32(255)
    return ((c - CLIP_MEAN) / CLIP_STD).transpose(2, 0, 1)


with open("clip_input.bin", "wb") as f:
    for h, w in [(300, 261), (261, 300), (300, 259)]:
        f.write(clip_input(pattern(h, w))[:, ::5, :].astype("<f4").tobytes())
