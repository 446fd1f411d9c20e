#!/usr/bin/env bash
# Makes the MLPerf YOLO data set (the 1,525 "safe" images of COCO val2017
# and their annotations) from COCO's public archives, as the reference's
# filter_coco_safe_images.py and create_safe_annotations.py
# (vision/classification_and_detection/yolo of mlcommons/inference) do,
# without Python:
#   1. val2017.zip and annotations_trainval2017.zip from cocodataset.org,
#      each checked against its published MD5;
#   2. `mlperf dataset preprocess coco2017`: the images whose licence URL
#      is CC BY, CC BY-SA, CC BY-ND, Flickr Commons or US Government,
#      copied to DIR/val2017_safe, and their annotations written to
#      DIR/annotations/instances_val2017.json as the reference's json.dump
#      writes them (the layout of the MLCommons distribution, which
#      accuracy-coco.py reads);
#   3. a check that DIR lists 1525 images, all present.
# The archives (about 1 GB) are kept in DIR/download_aux unless -c is
# given.
#
# Usage: download_dataset.sh [-d DIR] [-c]   (default build/data/coco2017)
# Environment (mirrors, tests): COCO_BASE_URL replaces
#   http://images.cocodataset.org; COCO2017_MD5_IMAGES and
#   COCO2017_MD5_ANNOTATIONS the expected MD5s; COCO2017_EXPECT the
#   expected number of safe images (0: any); MLPERF the mlperf binary
#   (default bin/mlperf, else mlperf on PATH).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/data/coco2017
CLEAN=
die() { echo "download_dataset: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:ch" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    c) CLEAN=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
BASE=${COCO_BASE_URL:-http://images.cocodataset.org}
BASE=${BASE%/}
MD5_IMAGES=${COCO2017_MD5_IMAGES:-442b8da7639aecaf257c1dceb8ba8c80}
MD5_ANNOTATIONS=${COCO2017_MD5_ANNOTATIONS:-f4bbac642086de4f52a3fdda2de5fa2c}
EXPECT=${COCO2017_EXPECT:-1525}
MLPERF=${MLPERF:-}
if [ -z "$MLPERF" ]; then
  if [ -x "$HERE/../../bin/mlperf" ]; then MLPERF=$HERE/../../bin/mlperf; else MLPERF=mlperf; fi
fi
command -v "$MLPERF" >/dev/null || die "no mlperf binary ($MLPERF): run make build, or set MLPERF"

AUX=$DIR/download_aux
FETCH="$HERE/../../scripts/fetch-checked.sh"
bash "$FETCH" download_dataset "$BASE/zips/val2017.zip" "$AUX/val2017.zip" "$MD5_IMAGES"
bash "$FETCH" download_dataset "$BASE/annotations/annotations_trainval2017.zip" "$AUX/annotations_trainval2017.zip" "$MD5_ANNOTATIONS"
"$MLPERF" dataset preprocess coco2017 --data "$AUX" -o "$DIR" || die "filtering the safe subset failed"
"$MLPERF" dataset verify coco2017 --data "$DIR" -n "$EXPECT" || die "the data set in $DIR does not verify"
if [ -n "$CLEAN" ]; then rm -rf "$AUX"; fi
echo "download_dataset: $DIR ready (images in $DIR/val2017_safe, annotations in $DIR/annotations/instances_val2017.json)"
