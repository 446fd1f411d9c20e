#!/usr/bin/env bash
# Downloads the KiTS19 cases the MLPerf 3D-UNet benchmark uses, in the raw
# layout DIR/case_XXXXX/{imaging,segmentation}.nii.gz, as the reference's
# Makefile does: segmentations from the kits19 git repository, CT volumes
# from the source kits19's starter_code/get_imaging.py now names, then
# case_00185 copied to case_00400. Files already present are kept; a failed
# download leaves no partial file.
#
# Usage: download_dataset.sh [-d DIR] [-c]
#   -d  destination folder (default: build/raw_data, or $DATA_DIR)
#   -c  the 20 calibration cases instead of the 42 inference cases
#   Then: mlperf dataset preprocess kits19 --data DIR -o build/preprocessed_data
# Environment (for mirrors and tests): KITS19_SEG_URL replaces
# https://raw.githubusercontent.com/neheller/kits19/master/data (files
# case_XXXXX/segmentation.nii.gz under it); KITS19_IMAGING_URL replaces
# https://huggingface.co/datasets/neheller/KiTS-Challenge-Imaging/resolve/main/images
# (files case_XXXXX.nii.gz under it).
set -euo pipefail

DATA_DIR=${DATA_DIR:-build/raw_data}
CALIB=
SEG=${KITS19_SEG_URL:-https://raw.githubusercontent.com/neheller/kits19/master/data}
IMG=${KITS19_IMAGING_URL:-https://huggingface.co/datasets/neheller/KiTS-Challenge-Imaging/resolve/main/images}
SEG=${SEG%/}
IMG=${IMG%/}

die() { echo "download_dataset: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:ch" opt; do
  case $opt in
    d) DATA_DIR=$OPTARG ;;
    c) CALIB=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

# mlcommons/inference vision/medical_imaging/3d-unet-kits19/meta/
# inference_cases.json (less case_00400, made below) and calibration_cases.json.
INFERENCE="00000 00003 00005 00006 00012 00024 00034 00041 00044 00049 00052 00056 00061 00065 00066 00070 00076 00078 00080 00084 00086 00087 00092 00111 00112 00125 00128 00138 00157 00160 00161 00162 00169 00171 00176 00185 00187 00189 00198 00203 00206 00207"
CALIBRATION="00050 00117 00172 00149 00091 00147 00144 00100 00090 00196 00183 00130 00136 00047 00073 00141 00053 00148 00081 00150"
CASES=$INFERENCE
[ -z "$CALIB" ] || CASES=$CALIBRATION

if command -v curl >/dev/null; then
  fetch() { curl -fsSL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null; then
  fetch() { wget -q -O "$2" "$1"; }
else
  die "neither curl nor wget found; install one (apt-get install curl)"
fi

get() { # URL OUT
  [ -s "$2" ] && return 0
  local part=$2.part.$$
  if ! fetch "$1" "$part"; then
    rm -f "$part"
    die "download of $1 failed"
  fi
  if [ "$(head -c 2 "$part" | od -An -tx1 | tr -d ' \n')" != "1f8b" ]; then
    rm -f "$part"
    die "$1 is not a gzip file (an HTML error page?); check the URL"
  fi
  mv "$part" "$2"
}

n=0
for c in $CASES; do
  d=$DATA_DIR/case_$c
  mkdir -p "$d"
  get "$SEG/case_$c/segmentation.nii.gz" "$d/segmentation.nii.gz"
  get "$IMG/case_$c.nii.gz" "$d/imaging.nii.gz"
  n=$((n + 1))
  echo "download_dataset: case_$c ($n)"
done
if [ -z "$CALIB" ]; then
  mkdir -p "$DATA_DIR/case_00400"
  cp "$DATA_DIR/case_00185/imaging.nii.gz" "$DATA_DIR/case_00185/segmentation.nii.gz" "$DATA_DIR/case_00400/"
  echo "download_dataset: case_00185 copied to case_00400"
fi
echo "download_dataset: $n cases in $DATA_DIR"
