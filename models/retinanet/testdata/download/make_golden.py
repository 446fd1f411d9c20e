#!/usr/bin/python3
"""Writes the goldens of download_dataset.sh's tests with the reference's
own code: get_image_list and export_to_coco of
vision/classification_and_detection/tools/openimages.py (mlcommons/inference),
loaded from a checkout given on the command line (not copied here), and
numpy's legacy np.random.choice with seed 42 as that script draws -m.

Test tooling, not part of the Go build. Needs Debian's python3-pandas,
python3-numpy and python3-opencv; run from the repository root:

    /usr/bin/python3 models/retinanet/testdata/download/make_golden.py \
        INFERENCE_CHECKOUT/vision/classification_and_detection/tools

It (re)writes, next to itself:
  class-descriptions-boxable.csv, validation-annotations-bbox.csv
                        small fixtures in the format of the OpenImages files
  images/<ImageID>.jpg  photos from preprocess/testdata/images (one with EXIF
                        orientation 6, one grayscale)
  golden.json           export_to_coco's output for all fixture images
  golden_m3.json        the same after -m 3 (seed 42)
  choice.json           np.random.choice(n, size=m) after np.random.seed(42)
  cal_list.txt, golden_calibration.json
                        a calibration list (the format of
                        calibration/openimages/openimages_cal_images_list.txt)
                        and what openimages_calibration.py's export_to_coco
                        writes for it, the fixture CSV standing in for the
                        train boxes
"""
import ast
import json
import os
import shlex
import shutil
import sys

import cv2  # noqa: F401  (used by the reference's extract_dims)
import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "..", "..", "..", "preprocess", "testdata", "images")

IMAGES = {
    "0a1b2c3d4e5f6071": "HappyFish.jpg",
    "00ff00ff00ff00ff": "fish_exif6.jpg",
    "1234567890abcdef": "left01.jpg",
    "fedcba0987654321": "fruits_tiny.jpg",
    "0000000000000001": "messi5.jpg",
}

CLASSES_CSV = """/m/0cmf2,Airplane
/m/0czz2,Antelope
/m/014j1m,Apple
/m/01940j,Backpack
/m/0x_not,"Toy, wooden"
/m/01yrx,Cat
/m/0bt9lr,Dog
/m/04yx4,Man
/m/03bt1vf,Woman
/m/0zzzz,Unicycle
/m/0c9ph5,Flower
/m/0k4j,Car
"""

HEADER = "ImageID,Source,LabelName,Confidence,XMin,XMax,YMin,YMax,IsOccluded,IsTruncated,IsGroupOf,IsDepiction,IsInside"
ROWS = [
    "0a1b2c3d4e5f6071,xclick,/m/01yrx,1,0.1,0.7,0.2,0.9,0,0,0,0,0",
    "0a1b2c3d4e5f6071,xclick,/m/0bt9lr,1,0.05,0.3375,0.123456789,0.5,1,0,0,0,0",
    "0a1b2c3d4e5f6071,xclick,/m/0c9ph5,1,0.0,1.0,0.0,1.0,0,0,0,0,0",
    "00ff00ff00ff00ff,xclick,/m/04yx4,1,0.25,0.75,0.1,0.3,0,1,1,0,0",
    "0000000000000001,xclick,/m/0k4j,1,0.1,0.2,0.3,0.4,0,0,0,0,0",
    "1234567890abcdef,xclick,/m/03bt1vf,1,0.333333,0.666667,0.01,0.99,0,0,0,1,1",
    "00ff00ff00ff00ff,xclick,/m/0cmf2,1,0,0.5,0.5,1,0,0,0,0,0",
    "fedcba0987654321,xclick,/m/0x_not,1,0.1,0.2,0.3,0.4,0,0,0,0,0",
    "fedcba0987654321,xclick,/m/014j1m,1,0.2,0.8,0.2,0.8,0,0,0,0,0",
    "0a1b2c3d4e5f6071,xclick,/m/01yrx,1,0.6,0.95,0.05,0.4,0,0,1,0,0",
    "1234567890abcdef,xclick,/m/0zzzz,1,0.1,0.2,0.3,0.4,0,0,0,0,0",
    "00ff00ff00ff00ff,xclick,/m/01940j,1,0.1,0.9,0.1,0.9,0,0,0,0,0",
]


def load_functions(path, names):
    tree = ast.parse(open(path).read())
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    ns = {"pd": pd, "np": np, "os": os, "json": json, "cv2": cv2}
    exec(compile(ast.Module(body=keep, type_ignores=[]), path, "exec"), ns)
    return ns


def load_reference(tools):
    """The reference's get_image_list and export_to_coco, and MLPERF_CLASSES."""
    src = open(os.path.join(tools, "openimages.py")).read()
    tree = ast.parse(src)
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef)
            and n.name in ("get_image_list", "export_to_coco", "extract_dims")]
    ns = {"pd": pd, "np": np, "os": os, "json": json, "cv2": cv2}
    exec(compile(ast.Module(body=keep, type_ignores=[]), "openimages.py", "exec"), ns)
    sh = open(os.path.join(tools, "openimages_mlperf.sh")).read()
    start = sh.index("MLPERF_CLASSES=(") + len("MLPERF_CLASSES=(")
    classes = shlex.split(sh[start:sh.index("')\n", start) + 1])
    assert len(classes) == 264
    return ns, classes


def main():
    ns, classes = load_reference(sys.argv[1])
    img_dir = os.path.join(HERE, "images")
    shutil.rmtree(img_dir, ignore_errors=True)
    os.makedirs(img_dir)
    for image_id, photo in IMAGES.items():
        shutil.copy(os.path.join(PHOTOS, photo), os.path.join(img_dir, image_id + ".jpg"))
    with open(os.path.join(HERE, "class-descriptions-boxable.csv"), "w") as f:
        f.write(CLASSES_CSV)
    with open(os.path.join(HERE, "validation-annotations-bbox.csv"), "w") as f:
        f.write(HEADER + "\n" + "\n".join(ROWS) + "\n")
    annotations = pd.read_csv(os.path.join(HERE, "validation-annotations-bbox.csv"))
    class_map = pd.read_csv(os.path.join(HERE, "class-descriptions-boxable.csv"), names=["LabelName", "DisplayName"])
    image_list = ns["get_image_list"](classes, class_map, annotations)
    ns["export_to_coco"](classes, class_map, annotations, image_list, img_dir, os.path.join(HERE, "golden.json"))
    np.random.seed(42)
    sel = np.random.choice(len(image_list), size=3)
    ns["export_to_coco"](classes, class_map, annotations, [image_list[i] for i in sel], img_dir,
                         os.path.join(HERE, "golden_m3.json"))
    choice = {"image_list": [i for _, i in image_list], "m3": [int(i) for i in sel], "cases": []}
    for n, m in ((4, 3), (24781, 40), (1000, 25), (1, 5), (65536, 10), (65537, 10)):
        np.random.seed(42)
        choice["cases"].append({"n": n, "m": m, "indices": [int(i) for i in np.random.choice(n, size=m)]})
    cal = load_functions(os.path.join(sys.argv[1], "openimages_calibration.py"), ("export_to_coco", "extract_dims"))
    cal_ids = ["fedcba0987654321", "0000000000000001", "00ff00ff00ff00ff", "0a1b2c3d4e5f6071"]
    with open(os.path.join(HERE, "cal_list.txt"), "w") as f:
        f.write("\n".join(i + ".jpg" for i in cal_ids))  # no trailing newline, as the reference's list
    cal["export_to_coco"](classes, class_map, annotations, [("train", i) for i in cal_ids], img_dir,
                          os.path.join(HERE, "golden_calibration.json"))
    with open(os.path.join(HERE, "choice.json"), "w") as f:
        json.dump(choice, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
