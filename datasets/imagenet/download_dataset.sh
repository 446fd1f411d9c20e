#!/usr/bin/env bash
# Prepares the ImageNet 2012 validation set for the MLPerf vision benchmarks
# (ResNet50): the 50 000 images plus val_map.txt, the layout the reference
# and `mlperf run resnet50 --data DIR` read.
#
# ImageNet cannot be downloaded automatically: its licence requires an
# account. Get ILSVRC2012_img_val.tar (6.3 GB) by hand:
#   1. register at https://image-net.org/ (https://image-net.org/challenges/LSVRC/2012/)
#   2. download "Validation images (all tasks)", ILSVRC2012_img_val.tar
#   3. run: download_dataset.sh -t /path/to/ILSVRC2012_img_val.tar -d DATA_DIR
#
# The script checks the tar against its published MD5, unpacks it into
# DATA_DIR, fetches Caffe's label file (caffe_ilsvrc12.tar.gz, MD5 checked)
# and installs its val.txt as DATA_DIR/val_map.txt, as MLCommons' scripts
# do, then records the MD5 of every image in DATA_DIR/imagenet_val.md5 for
# verify_dataset.sh.
#
# Usage: download_dataset.sh [-d DATA_DIR] [-t VAL_TAR] [-c CAFFE_TGZ]
#   -d  destination folder (default: ./imagenet, or $DATA_DIR)
#   -t  ILSVRC2012_img_val.tar (default: DATA_DIR/ILSVRC2012_img_val.tar,
#       then ./ILSVRC2012_img_val.tar)
#   -c  a local copy of caffe_ilsvrc12.tar.gz instead of downloading it
# Environment (for mirrors and tests): CAFFE_ILSVRC12_URL,
# CAFFE_ILSVRC12_MD5, IMAGENET_VAL_MD5.
set -euo pipefail

VAL_MD5=${IMAGENET_VAL_MD5:-29b22e2961454d5413ddabcf34fc5622}
CAFFE_URL=${CAFFE_ILSVRC12_URL:-http://dl.caffe.berkeleyvision.org/caffe_ilsvrc12.tar.gz}
CAFFE_MD5=${CAFFE_ILSVRC12_MD5:-f963098ea0e785a968ca1eb634003a90}
DATA_DIR=${DATA_DIR:-./imagenet}
TAR=
CAFFE=

die() { echo "download_dataset: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:t:c:h" opt; do
  case $opt in
    d) DATA_DIR=$OPTARG ;;
    t) TAR=$OPTARG ;;
    c) CAFFE=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
for tool in md5sum tar gzip; do
  command -v "$tool" >/dev/null || die "$tool not found; install it (Debian: coreutils, tar, gzip)"
done

if [ -z "$TAR" ]; then
  for cand in "$DATA_DIR/ILSVRC2012_img_val.tar" ./ILSVRC2012_img_val.tar; do
    if [ -f "$cand" ]; then TAR=$cand; break; fi
  done
fi
if [ -z "$TAR" ] || [ ! -f "$TAR" ]; then
  cat >&2 <<MSG
download_dataset: ILSVRC2012_img_val.tar not found${TAR:+ at $TAR}.
ImageNet needs a manual download (its licence requires an account):
  1. register at https://image-net.org/ and sign the terms of access
  2. from https://image-net.org/challenges/LSVRC/2012/ download
     "Validation images (all tasks)": ILSVRC2012_img_val.tar, 6.3 GB,
     MD5 $VAL_MD5
  3. run: $0 -t /path/to/ILSVRC2012_img_val.tar -d $DATA_DIR
MSG
  exit 2
fi

md5_of() { md5sum "$1" | cut -d' ' -f1; }

echo "checking $TAR (MD5)..."
got=$(md5_of "$TAR")
[ "$got" = "$VAL_MD5" ] || die "checksum mismatch for $TAR: MD5 $got, want $VAL_MD5 (a damaged download, or not the ILSVRC2012 validation tar); nothing was extracted"

mkdir -p "$DATA_DIR"
tmp=$(mktemp -d "$DATA_DIR/.download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Labels first, so that a failure leaves no half-prepared data set.
if [ -n "$CAFFE" ]; then
  [ -f "$CAFFE" ] || die "$CAFFE: no such file"
  cp "$CAFFE" "$tmp/caffe.tgz"
else
  echo "downloading $CAFFE_URL..."
  if command -v curl >/dev/null; then
    curl -fsSL --retry 3 -o "$tmp/caffe.tgz" "$CAFFE_URL" || die "cannot download $CAFFE_URL; download it by hand and pass it with -c"
  elif command -v wget >/dev/null; then
    wget -q -O "$tmp/caffe.tgz" "$CAFFE_URL" || die "cannot download $CAFFE_URL; download it by hand and pass it with -c"
  else
    die "neither curl nor wget found; install one, or download $CAFFE_URL by hand and pass it with -c"
  fi
fi
got=$(md5_of "$tmp/caffe.tgz")
[ "$got" = "$CAFFE_MD5" ] || die "checksum mismatch for caffe_ilsvrc12.tar.gz: MD5 $got, want $CAFFE_MD5; nothing was installed"
tar -xzf "$tmp/caffe.tgz" -C "$tmp" val.txt 2>/dev/null || die "caffe_ilsvrc12.tar.gz holds no val.txt"

echo "extracting $TAR into $DATA_DIR..."
mkdir "$tmp/val"
tar -xf "$TAR" -C "$tmp/val"
(cd "$tmp/val" && find . -type f -print0 | sort -z | xargs -0 md5sum) > "$tmp/imagenet_val.md5"
find "$tmp/val" -mindepth 1 -maxdepth 1 -exec mv -f {} "$DATA_DIR/" \;
mv -f "$tmp/imagenet_val.md5" "$DATA_DIR/imagenet_val.md5"
mv -f "$tmp/val.txt" "$DATA_DIR/val_map.txt"

n=$(grep -c . "$DATA_DIR/val_map.txt" || true)
echo "ImageNet validation set ready in $DATA_DIR: $n images listed in val_map.txt"
echo "check it any time with: $(dirname "$0")/verify_dataset.sh -d $DATA_DIR"
