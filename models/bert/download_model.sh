#!/usr/bin/env bash
# Downloads the official MLPerf BERT-large SQuAD model and its vocabulary
# and checks each against its published MD5. A file that does not match is
# deleted and the script fails; nothing partial is ever left under the
# final name.
#
# Usage: download_model.sh [-d DIR] [-f WHAT]
#   -d  destination folder (default: build/data/bert_tf_v1_1_large_fp32_384_v2,
#       the reference's layout, or $MODEL_DIR)
#   -f  what to fetch (default: fp32)
#         fp32   model.onnx (fp32, opset 11, zenodo record 3733910) and vocab.txt
#         int8   bert_large_v1_1_fake_quant.onnx (zenodo record 3750364) and vocab.txt
#         vocab  vocab.txt only (zenodo record 3733868)
#         all    all three files
#   The fp32 model takes input_ids, input_mask, segment_ids int64 [N,384];
#   the int8 one input_ids, attention_mask, token_type_ids. Run them with:
#     mlperf run bert --model DIR/model.onnx --vocab DIR/vocab.txt --data DIR_OF_dev-v1.1.json
# Environment (for mirrors and tests): BERT_BASE_URL replaces
# https://zenodo.org; BERT_FP32_MD5, BERT_INT8_MD5 and BERT_VOCAB_MD5
# replace the expected MD5s.
set -euo pipefail

MODEL_DIR=${MODEL_DIR:-build/data/bert_tf_v1_1_large_fp32_384_v2}
WHAT=fp32
BASE=${BERT_BASE_URL:-https://zenodo.org}
BASE=${BASE%/}

die() { echo "download_model: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:f:h" opt; do
  case $opt in
    d) MODEL_DIR=$OPTARG ;;
    f) WHAT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

# Published URLs and MD5s (MLCommons inference language/bert Makefile;
# MD5s from mlcommons/mlperf-automations get-ml-model-bert-large-squad).
FP32="/record/3733910/files/model.onnx ${BERT_FP32_MD5:-819b25b19cd8e59080c10892689750ca}"
INT8="/record/3750364/files/bert_large_v1_1_fake_quant.onnx ${BERT_INT8_MD5:-45f88ffb2915362242703c85c38ec2d4}"
VOCAB="/record/3733868/files/vocab.txt ${BERT_VOCAB_MD5:-64800d5d8528ce344256daf115d4965e}"
case $WHAT in
  fp32)  FILES=("$FP32" "$VOCAB") ;;
  int8)  FILES=("$INT8" "$VOCAB") ;;
  vocab) FILES=("$VOCAB") ;;
  all)   FILES=("$FP32" "$INT8" "$VOCAB") ;;
  *) die "unknown choice '$WHAT'; want fp32, int8, vocab or all" ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)

# fetch URL_PATH MD5: downloads one file into MODEL_DIR unless it is there.
fetch() {
  bash "$HERE/../../scripts/fetch-checked.sh" download_model "$BASE$1" "$MODEL_DIR/${1##*/}" "$2" || exit 1
}

for f in "${FILES[@]}"; do
  # shellcheck disable=SC2086
  fetch $f
done
