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
