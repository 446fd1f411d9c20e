#!/usr/bin/env bash
# Downloads the MLCommons preprocessed OpenOrca data set of Llama 2 70B
# (open_orca_gpt4_tokenized_llama.sampled_24576.pkl and its calibration
# set) from the MLCommons R2 bucket, as the reference README's
#   bash <(curl -s https://raw.githubusercontent.com/mlcommons/r2-downloader/refs/heads/main/mlc-r2-downloader.sh) \
#     https://inference.mlcommons-storage.org/metadata/llama-2-70b-open-orca-dataset.uri
# does: every file is checked against the MD5 list published beside the
# metadata (no checksum is published anywhere else); a mismatch deletes the
# file and fails. The bucket is for MLCommons members: a browser login
# through cloudflared, or MLC_R2_TOKEN (see scripts/mlc-r2-download.sh).
#
# The files are pandas pickles; convert the data set once to parquet with
# pandas (your own Python, not part of this project):
#   python3 -c "import pandas as pd; pd.read_pickle('DIR/open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz').to_parquet('DIR/open_orca_gpt4_tokenized_llama.sampled_24576.parquet')"
#
# Usage: download_dataset.sh [DIR]   (default build/data/open-orca)
# Environment: OPENORCA_METADATA_URL replaces the metadata URL (mirrors, tests).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-build/data/open-orca}
URL=${OPENORCA_METADATA_URL:-https://inference.mlcommons-storage.org/metadata/llama-2-70b-open-orca-dataset.uri}
bash "$HERE/../../scripts/mlc-r2-download.sh" -d "$DIR" "$URL"
pkl=
for f in "$DIR"/open_orca_gpt4_tokenized_llama.sampled_24576.pkl "$DIR"/open_orca_gpt4_tokenized_llama.sampled_24576.pkl.gz; do
  if [ -f "$f" ]; then pkl=$f; fi
done
parquet=$DIR/open_orca_gpt4_tokenized_llama.sampled_24576.parquet
if [ -n "$pkl" ] && [ ! -f "$parquet" ]; then
  echo "openorca: convert the pickle once to parquet for mlperf (needs pandas and pyarrow):"
  echo "  python3 -c \"import pandas as pd; pd.read_pickle('$pkl').to_parquet('$parquet')\""
fi
