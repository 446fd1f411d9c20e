#!/usr/bin/env bash
# Verifies a downloaded Mixtral-8x7B data set file by its MD5: the
# validation pickle (09292024_mixtral_15k_mintoken2_v1.pkl) and the
# calibration pickle (2024.06.06_mixtral_15k_calibration_v4.pkl) are
# recognised by name; any other name is checked against both sums.
#
# Usage: verify_dataset.sh [FILE]
#   FILE  default build/data/mixtral/09292024_mixtral_15k_mintoken2_v1.pkl
# Environment: MIXTRAL_MD5, MIXTRAL_CALIBRATION_MD5 replace the sums (tests).
set -euo pipefail
FILE=${1:-build/data/mixtral/09292024_mixtral_15k_mintoken2_v1.pkl}
VALIDATION_MD5=${MIXTRAL_MD5:-ded6c711288c9bbca02929855557b8c1}
CALIBRATION_MD5=${MIXTRAL_CALIBRATION_MD5:-75067c9fe5cb5baef216a4b124c61df1}
die() { echo "mixtral: $*" >&2; exit 1; }
[ -f "$FILE" ] || die "$FILE not found; run datasets/mixtral/download_dataset.sh"
command -v md5sum >/dev/null || die "md5sum not found; install coreutils"
got=$(md5sum "$FILE" | cut -d' ' -f1)
case ${FILE##*/} in
  09292024_mixtral_15k_mintoken2_v1.pkl) want=$VALIDATION_MD5; what=validation ;;
  2024.06.06_mixtral_15k_calibration_v4.pkl) want=$CALIBRATION_MD5; what=calibration ;;
  *)
    case $got in
      "$VALIDATION_MD5") echo "mixtral: $FILE is the official validation file (MD5 $got)"; exit 0 ;;
      "$CALIBRATION_MD5") echo "mixtral: $FILE is the official calibration file (MD5 $got)"; exit 0 ;;
    esac
    die "$FILE has MD5 $got, neither the validation file's $VALIDATION_MD5 nor the calibration file's $CALIBRATION_MD5"
    ;;
esac
[ "$got" = "$want" ] || die "$FILE has MD5 $got, want $want (the official $what file); delete it and run download_dataset.sh again"
echo "mixtral: $FILE is the official $what file (MD5 $got)"
