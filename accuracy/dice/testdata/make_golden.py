#!/usr/bin/env python3
"""Goldens for accuracy/dice/dice.go: the reference 3D-UNet scorer
vision/medical_imaging/3d-unet-kits19/accuracy_kits.py run end to end on
small synthetic KiTS19 cases.

  /usr/bin/python3 make_golden.py --reference PATH/TO/mlcommons/inference

Needs numpy, nibabel and pandas < 2 (Debian: python3-numpy python3-nibabel
python3-pandas). Writes, beside this script:
  mlperf_log_accuracy.json            the LoadGen-format log of predictions
  nifti/case_XXXXX/segmentation.nii.gz ground truth (uint8, int16, scaled float32)
  postprocessed/case_XXXXX/prediction.nii.gz  what the reference wrote
  golden.json                         the reference's printout and summary.csv
"""
import argparse, json, os, pickle, shutil, subprocess, sys, tempfile
import numpy as np
import nibabel as nib

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--reference", required=True)
args = ap.parse_args()
rng = np.random.default_rng(19)

def blob(shape, p1, p2):
    u = rng.random(shape)
    return np.where(u < p2, 2, np.where(u < p2 + p1, 1, 0)).astype(np.uint8)

cases = {}
g = blob((5, 6, 7), 0.3, 0.1)
p = g.copy(); flip = rng.random(g.shape) < 0.2; p[flip] = rng.integers(0, 3, flip.sum())
cases["case_00000"] = (p, g, "uint8")
g = blob((5, 6, 7), 0.2, 0.2)
cases["case_00001"] = (g.copy(), g, "uint8")                     # perfect
g = blob((4, 9, 3), 0.4, 0.0); p = blob((4, 9, 3), 0.4, 0.0)
cases["case_00002"] = (p, g, "int16")                             # no tumor anywhere
g = blob((5, 6, 7), 0.3, 0.0); p = blob((5, 6, 7), 0.3, 0.05)
cases["case_00003"] = (p, g, "uint8")                             # tumor predicted, none true
z = np.zeros((5, 6, 7), np.uint8)
cases["case_00004"] = (z.copy(), z, "uint8")                      # both empty
g = blob((5, 6, 7), 0.1, 0.3); p = blob((5, 6, 7), 0.1, 0.3)
cases["case_00005"] = (p, g, "scaled")                            # float32 data, scl_slope 2
names = sorted(cases)

work = tempfile.mkdtemp()
pre, post = os.path.join(work, "pre"), os.path.join(work, "post")
aux = {}
for c in names:
    p, gt, kind = cases[c]
    d = os.path.join(pre, "nifti", c); os.makedirs(d)
    aff = np.diag([0.8, 0.8, 1.5, 1.0])
    if kind == "int16":
        img = nib.Nifti1Image(gt.astype(np.int16), aff)
    elif kind == "scaled":
        img = nib.Nifti1Image((gt / 2.0).astype(np.float32), aff)
        img.header.set_slope_inter(2.0, 0.0)
    else:
        img = nib.Nifti1Image(gt, aff)
    nib.save(img, os.path.join(d, "segmentation.nii.gz"))
    aux[c] = {"image_shape": (1,) + gt.shape, "reshaped_affine": aff}
with open(os.path.join(pre, "preprocessed_files.pkl"), "wb") as f:
    pickle.dump({"file_list": names, "cases": aux}, f)
order = [3, 0, 5, 1, 4, 2]  # LoadGen's order is shuffled
entries = ['{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }' % (s, q, cases[names[q]][0].tobytes().hex().upper())
           for s, q in enumerate(order)]
log = os.path.join(here, "mlperf_log_accuracy.json")
with open(log, "w") as f:
    f.write("[\n" + ",\n".join(entries) + "\n]\n")
script = os.path.join(args.reference, "vision/medical_imaging/3d-unet-kits19/accuracy_kits.py")
res = subprocess.run([sys.executable, script, "--log_file", log, "--preprocessed_data_dir", pre,
                      "--postprocessed_data_dir", post, "--num_proc", "1"],
                     check=True, capture_output=True, text=True)
line = [l for l in res.stdout.splitlines() if l.startswith("Accuracy:")][0]
with open(os.path.join(post, "summary.csv")) as f:
    summary = f.read()
for sub in ("nifti", "postprocessed"):
    shutil.rmtree(os.path.join(here, sub), ignore_errors=True)
shutil.copytree(os.path.join(pre, "nifti"), os.path.join(here, "nifti"))
os.makedirs(os.path.join(here, "postprocessed"))
for c in names:
    shutil.copytree(os.path.join(post, c), os.path.join(here, "postprocessed", c))
# C-order checksums of what nibabel reads, to check the NIfTI reader.
voxels = {c: [int(v) for v in nib.load(os.path.join(here, "nifti", c, "segmentation.nii.gz")).get_fdata().astype(np.uint8).ravel()[:40]]
          for c in names}
shapes = {c: list(cases[c][1].shape) for c in names}
with open(os.path.join(here, "golden.json"), "w") as f:
    json.dump({"line": line, "summary_csv": summary, "first_voxels": voxels, "shapes": shapes,
               "numpy": np.__version__, "nibabel": nib.__version__}, f, indent=1, sort_keys=True)
    f.write("\n")
shutil.rmtree(work)
