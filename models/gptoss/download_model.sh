#!/usr/bin/env bash
# Downloads gpt-oss-120b, the checkpoint of the MLPerf gpt-oss-120b
# benchmark, for the serving engine that runs it (this suite does not run
# the model itself: serve it with SGLang, as the reference does, or vLLM,
# and point mlperf run gpt-oss-120b --backend sglang|openai --endpoint at
# the servers).
#
# The source is the MLCommons R2 copy (mlcommons/mlperf-automations
# get-ml-model-gpt-oss; the reference's e2e-rag download),
# https://inference.mlcommons-storage.org/metadata/gpt-oss-model.uri, every
# file checked against the MD5 list published beside it (a mismatch
# deletes the file and fails); the reference README's checkpoint is
# Hugging Face openai/gpt-oss-120b at revision
# b5c939de8f754692c1647ca79fbf85e8c1e70f8a. The checkpoint's config.json
# must describe gpt-oss-120b (model_type gpt_oss, 36 layers, vocabulary
# 201088); its tokenizer.json serves mlperf run --tokenizer as well.
#
# Usage: download_model.sh [-d DIR] [-c]
#   -d  destination folder (default build/models/gpt-oss-120b); about 65 GB
#   -c  only check an existing DIR (MD5 list and config.json)
# Then, for example (the reference's language/gpt-oss-120b/sglang/run_server.sh):
#   python3 -m sglang.launch_server --model-path DIR --port 30000 --dp 1
#   mlperf run gpt-oss-120b --backend sglang --endpoint http://localhost:30000 --tokenizer DIR
# Environment (mirrors, tests): GPTOSS_MODEL_METADATA_URL replaces the metadata URL.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/models/gpt-oss-120b
CHECK=
die() { echo "gpt-oss-120b: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "d:ch" opt; do
  case $opt in
    d) DIR=$OPTARG ;;
    c) CHECK=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
URL=${GPTOSS_MODEL_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/gpt-oss-model.uri}
LIST=${URL##*/}
LIST=${LIST%.*}.md5
if [ -z "$CHECK" ]; then
  bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
else
  [ -d "$DIR" ] || die "$DIR does not exist; run without -c to download"
  if [ -f "$DIR/$LIST" ]; then
    (cd "$DIR" && md5sum -c --quiet "$LIST") || die "files in $DIR do not match $LIST"
    echo "gpt-oss-120b: files in $DIR match $LIST"
  fi
fi
cfg=$DIR/config.json
[ -f "$cfg" ] || die "$cfg missing: $DIR is not a Hugging Face checkpoint"
for want in '"model_type": *"gpt_oss"' '"num_hidden_layers": *36' '"vocab_size": *201088'; do
  grep -Eq "$want" "$cfg" || die "$cfg does not match $want: the checkpoint is not gpt-oss-120b's"
done
echo "gpt-oss-120b: $cfg describes gpt-oss-120b (gpt_oss, 36 layers, vocabulary 201088)"
