#!/usr/bin/env bash
# Downloads the official MLPerf YOLOv11 checkpoint from the MLCommons R2
# bucket, as the reference README's
#   mlcr get-ml-model-yolov11,_mlc,_r2-downloader
# does (metadata https://yolo.mlcommons-storage.org/metadata/YOLO-model.uri,
# every file MD5-checked against the list published beside it; the bucket
# is for MLCommons members: see scripts/mlc-r2-download.sh).
#
# The checkpoint is Ultralytics' PyTorch weights (YOLO11-L). mlperf runs
# the ONNX export, which only Ultralytics (Python) can make; on any
# machine with it, once:
#   yolo export model=yolo11l.pt format=onnx imgsz=640
# (static shapes, no NMS in the graph: output0 is [1, 84, 8400]), then
#   mlperf run yolo --model yolo11l.onnx --data DATA
#
# Usage: download_model.sh [DIR]   (default build/models/yolo)
# Environment: YOLO_METADATA_URL replaces the metadata URL (mirrors,
# tests); MLC_R2_TOKEN / MLC_R2_NO_LOGIN as for scripts/mlc-r2-download.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-build/models/yolo}
URL=${YOLO_METADATA_URL:-https://yolo.mlcommons-storage.org/metadata/YOLO-model.uri}
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
found=$(find "$DIR" -type f \( -name '*.pt' -o -name '*.onnx' \) | sort)
if [ -z "$found" ]; then
  echo "yolo: no .pt or .onnx file among the downloaded files in $DIR" >&2
  exit 1
fi
for f in $found; do
  case $f in
    *.onnx) echo "yolo: ONNX model $f; run it with: mlperf run yolo --model $f" ;;
    *.pt) echo "yolo: PyTorch checkpoint $f; export it once with Ultralytics (yolo export model=$f format=onnx imgsz=640) and run the .onnx" ;;
  esac
done
