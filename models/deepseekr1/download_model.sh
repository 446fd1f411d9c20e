#!/usr/bin/env bash
# Downloads DeepSeek-R1, the checkpoint of the MLPerf deepseek-r1
# benchmark, for the serving engine that runs it (this suite does not run
# the model itself: serve it with SGLang or vLLM and point mlperf run
# deepseek-r1 --backend sglang|openai --endpoint at the servers).
#
# The source is the MLCommons R2 copy the reference README names,
# https://inference.mlcommons-storage.org/metadata/deepseek-r1.uri, every
# file checked against the MD5 list published beside it (a mismatch
# deletes the file and fails); the reference's other source is Hugging
# Face deepseek-ai/DeepSeek-R1 at revision
# 56d4cbbb4d29f4355bab4b9a39ccb717a14ad5ad. The checkpoint's config.json
# must describe DeepSeek-R1 (model_type deepseek_v3, 61 layers, vocabulary
# 129280); its tokenizer.json serves mlperf run --tokenizer as well.
#
# Usage: download_model.sh [-d DIR] [-c]
#   -d  destination folder (default build/models/DeepSeek-R1); about 700 GB
#   -c  only check an existing DIR (MD5 list and config.json)
# Then, for example:
#   python3 -m sglang.launch_server --model-path DIR --tp 8 --trust-remote-code --port 30000
#   mlperf run deepseek-r1 --backend sglang --endpoint http://localhost:30000 --tokenizer DIR
# Environment (mirrors, tests): DEEPSEEK_R1_MODEL_METADATA_URL replaces the metadata URL.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=build/models/DeepSeek-R1
CHECK=
die() { echo "deepseek-r1: $*" >&2; exit 1; }
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
URL=${DEEPSEEK_R1_MODEL_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/deepseek-r1.uri}
LIST=${URL##*/}
LIST=${LIST%.*}.md5
if [ -z "$CHECK" ]; then
  bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
else
  [ -d "$DIR" ] || die "$DIR does not exist; run without -c to download"
  if [ -f "$DIR/$LIST" ]; then
    (cd "$DIR" && md5sum -c --quiet "$LIST") || die "files in $DIR do not match $LIST"
    echo "deepseek-r1: files in $DIR match $LIST"
  fi
fi
cfg=$DIR/config.json
[ -f "$cfg" ] || die "$cfg missing: $DIR is not a Hugging Face checkpoint"
for want in '"model_type": *"deepseek_v3"' '"num_hidden_layers": *61' '"vocab_size": *129280'; do
  grep -Eq "$want" "$cfg" || die "$cfg does not match $want: the checkpoint is not DeepSeek-R1's"
done
echo "deepseek-r1: $cfg describes DeepSeek-R1 (deepseek_v3, 61 layers, vocabulary 129280)"
