#!/usr/bin/env bash
# Downloads the OpenImages v6 MLPerf validation subset as
# tools/openimages_mlperf.sh of mlcommons/inference does, without Python:
#   1. the box annotations and class descriptions CSVs into annotations/;
#   2. the ImageIDs that have a box of one of the 264 MLPerf classes (in
#      order of first appearance), or with -m N, N of them drawn as numpy's
#      np.random.seed(42); np.random.choice(len, size=N) draws (with
#      replacement);
#   3. the images, validation/<ImageID>.jpg of the public open-images-dataset
#      bucket over HTTPS, into validation/data/ (parallel, with retries;
#      partial files resume);
#   4. annotations/openimages-mlperf.json in the form export_to_coco writes
#      (tools/openimages.py): info, licenses, the 264 categories, images
#      sorted by ImageID with ids from 1 and the height and width OpenCV
#      reads (EXIF orientation applied), annotations with pixel boxes.
# With -a it instead fetches the released annotation file
# (openimages-mlperf_annotations_2.1.json.zip, MD5-checked) and the images
# it lists. With -c it fetches the calibration set as
# tools/openimages_calibration_mlperf.sh does: the 500 train images of
# openimages_cal_images_list.txt into calibration/data/ and
# annotations/openimages-calibration-mlperf.json from the v6 train boxes
# (images and annotations in CSV order, as openimages_calibration.py
# writes them).
#
# Usage: download_dataset.sh [-d DIR] [-m MAX_IMAGES] [-a] [-c [-l LIST]] [-j JOBS]
#   -d  dataset folder (default: ./open-images-v6-mlperf, or $DATA_DIR)
#   -m  download only MAX_IMAGES images drawn as the reference draws them
#   -a  use the released annotation file instead of building it (no -m)
#   -c  download the calibration set instead of the validation subset
#   -l  calibration list (default: openimages_cal_images_list.txt beside
#       this script)
#   -j  parallel image downloads (default 10, the reference's threads)
# Environment (for mirrors and tests): OPENIMAGES_ANNOTATIONS_URL replaces
# https://storage.googleapis.com/openimages/v5, OPENIMAGES_IMAGES_URL
# replaces https://s3.amazonaws.com/open-images-dataset,
# OPENIMAGES_TRAIN_ANNOTATIONS_URL replaces
# https://storage.googleapis.com/openimages/v6 (for -c),
# OPENIMAGES_RELEASE_URL replaces
# https://github.com/mlcommons/inference/releases/download/v2.1 and
# OPENIMAGES_ZIP_MD5 the archive's expected MD5.
# Differences from the reference, none of which changes a score: within
# one image, annotations are in CSV order (pandas' unstable sort may order
# them otherwise), and annotation ids follow pandas 1.x's merge order.
set -euo pipefail

DATA_DIR=${DATA_DIR:-./open-images-v6-mlperf}
MAX=""
RELEASED=0
CALIB=0
CAL_LIST=$(dirname "$0")/openimages_cal_images_list.txt
JOBS=10
ANN_URL=${OPENIMAGES_ANNOTATIONS_URL:-https://storage.googleapis.com/openimages/v5}
IMG_URL=${OPENIMAGES_IMAGES_URL:-https://s3.amazonaws.com/open-images-dataset}
REL_URL=${OPENIMAGES_RELEASE_URL:-https://github.com/mlcommons/inference/releases/download/v2.1}
TRAIN_URL=${OPENIMAGES_TRAIN_ANNOTATIONS_URL:-https://storage.googleapis.com/openimages/v6}
TRAIN_URL=${TRAIN_URL%/}
ZIP_MD5=${OPENIMAGES_ZIP_MD5:-817fd8da3aeeb0575f1e2d2926b15e68}
ANN_URL=${ANN_URL%/}
IMG_URL=${IMG_URL%/}
REL_URL=${REL_URL%/}

die() { echo "download_dataset: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while getopts "d:m:acl:j:h" opt; do
  case $opt in
    d) DATA_DIR=$OPTARG ;;
    m) MAX=$OPTARG ;;
    a) RELEASED=1 ;;
    c) CALIB=1 ;;
    l) CAL_LIST=$OPTARG ;;
    j) JOBS=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
if [ -n "$MAX" ] && ! [[ $MAX =~ ^[0-9]+$ && $MAX -ge 1 ]]; then die "-m $MAX: want a positive number of images"; fi
[[ $JOBS =~ ^[0-9]+$ && $JOBS -ge 1 ]] || die "-j $JOBS: want a positive number of downloads"
[ "$RELEASED" = 0 ] || [ -z "$MAX" ] || die "-a and -m do not go together: the released file lists every image"
[ "$CALIB" = 0 ] || { [ -z "$MAX" ] && [ "$RELEASED" = 0 ]; } || die "-c does not go with -m or -a"
command -v curl >/dev/null || die "curl not found; install it (apt-get install curl)"
command -v od >/dev/null || die "od not found; install coreutils"

# MLPERF_CLASSES of tools/openimages_mlperf.sh, in category-id order.
CLASSES=('Airplane' 'Antelope' 'Apple' 'Backpack' 'Balloon' 'Banana'
  'Barrel' 'Baseball bat' 'Baseball glove' 'Bee' 'Beer' 'Bench' 'Bicycle'
  'Bicycle helmet' 'Bicycle wheel' 'Billboard' 'Book' 'Bookcase' 'Boot'
  'Bottle' 'Bowl' 'Bowling equipment' 'Box' 'Boy' 'Brassiere' 'Bread'
  'Broccoli' 'Bronze sculpture' 'Bull' 'Bus' 'Bust' 'Butterfly' 'Cabinetry'
  'Cake' 'Camel' 'Camera' 'Candle' 'Candy' 'Cannon' 'Canoe' 'Carrot' 'Cart'
  'Castle' 'Cat' 'Cattle' 'Cello' 'Chair' 'Cheese' 'Chest of drawers' 'Chicken'
  'Christmas tree' 'Coat' 'Cocktail' 'Coffee' 'Coffee cup' 'Coffee table' 'Coin'
  'Common sunflower' 'Computer keyboard' 'Computer monitor' 'Convenience store'
  'Cookie' 'Countertop' 'Cowboy hat' 'Crab' 'Crocodile' 'Cucumber' 'Cupboard'
  'Curtain' 'Deer' 'Desk' 'Dinosaur' 'Dog' 'Doll' 'Dolphin' 'Door' 'Dragonfly'
  'Drawer' 'Dress' 'Drum' 'Duck' 'Eagle' 'Earrings' 'Egg (Food)' 'Elephant'
  'Falcon' 'Fedora' 'Flag' 'Flowerpot' 'Football' 'Football helmet' 'Fork'
  'Fountain' 'French fries' 'French horn' 'Frog' 'Giraffe' 'Girl' 'Glasses'
  'Goat' 'Goggles' 'Goldfish' 'Gondola' 'Goose' 'Grape' 'Grapefruit' 'Guitar'
  'Hamburger' 'Handbag' 'Harbor seal' 'Headphones' 'Helicopter' 'High heels'
  'Hiking equipment' 'Horse' 'House' 'Houseplant' 'Human arm' 'Human beard'
  'Human body' 'Human ear' 'Human eye' 'Human face' 'Human foot' 'Human hair'
  'Human hand' 'Human head' 'Human leg' 'Human mouth' 'Human nose' 'Ice cream'
  'Jacket' 'Jeans' 'Jellyfish' 'Juice' 'Kitchen & dining room table' 'Kite'
  'Lamp' 'Lantern' 'Laptop' 'Lavender (Plant)' 'Lemon' 'Light bulb' 'Lighthouse'
  'Lily' 'Lion' 'Lipstick' 'Lizard' 'Man' 'Maple' 'Microphone' 'Mirror'
  'Mixing bowl' 'Mobile phone' 'Monkey' 'Motorcycle' 'Muffin' 'Mug' 'Mule'
  'Mushroom' 'Musical keyboard' 'Necklace' 'Nightstand' 'Office building'
  'Orange' 'Owl' 'Oyster' 'Paddle' 'Palm tree' 'Parachute' 'Parrot' 'Pen'
  'Penguin' 'Personal flotation device' 'Piano' 'Picture frame' 'Pig' 'Pillow'
  'Pizza' 'Plate' 'Platter' 'Porch' 'Poster' 'Pumpkin' 'Rabbit' 'Rifle'
  'Roller skates' 'Rose' 'Salad' 'Sandal' 'Saucer' 'Saxophone' 'Scarf' 'Sea lion'
  'Sea turtle' 'Sheep' 'Shelf' 'Shirt' 'Shorts' 'Shrimp' 'Sink' 'Skateboard'
  'Ski' 'Skull' 'Skyscraper' 'Snake' 'Sock' 'Sofa bed' 'Sparrow' 'Spider' 'Spoon'
  'Sports uniform' 'Squirrel' 'Stairs' 'Stool' 'Strawberry' 'Street light'
  'Studio couch' 'Suit' 'Sun hat' 'Sunglasses' 'Surfboard' 'Sushi' 'Swan'
  'Swimming pool' 'Swimwear' 'Tank' 'Tap' 'Taxi' 'Tea' 'Teddy bear' 'Television'
  'Tent' 'Tie' 'Tiger' 'Tin can' 'Tire' 'Toilet' 'Tomato' 'Tortoise' 'Tower'
  'Traffic light' 'Train' 'Tripod' 'Truck' 'Trumpet' 'Umbrella' 'Van' 'Vase'
  'Vehicle registration plate' 'Violin' 'Wall clock' 'Waste container' 'Watch'
  'Whale' 'Wheel' 'Wheelchair' 'Whiteboard' 'Window' 'Wine' 'Wine glass' 'Woman'
  'Zebra' 'Zucchini')
[ ${#CLASSES[@]} -eq 264 ] || die "internal error: ${#CLASSES[@]} classes"

# MT19937 as numpy's legacy RandomState: seeded with init_genrand(seed).
mt_seed() {
  MT=([0]=$(($1 & 0xFFFFFFFF)))
  local i p
  for ((i = 1; i < 624; i++)); do
    p=${MT[i - 1]}
    MT[i]=$(((1812433253 * (p ^ (p >> 30)) + i) & 0xFFFFFFFF))
  done
  MTI=624
}
# mt_next sets R to the next 32-bit output.
mt_next() {
  local k y v
  if ((MTI >= 624)); then
    for ((k = 0; k < 624; k++)); do
      y=$(((MT[k] & 0x80000000) | (MT[(k + 1) % 624] & 0x7fffffff)))
      v=$((MT[(k + 397) % 624] ^ (y >> 1)))
      ((y & 1)) && v=$((v ^ 0x9908b0df))
      MT[k]=$v
    done
    MTI=0
  fi
  y=${MT[MTI]}
  MTI=$((MTI + 1))
  y=$((y ^ (y >> 11)))
  y=$((y ^ ((y << 7) & 0x9d2c5680)))
  y=$((y ^ ((y << 15) & 0xefc60000)))
  y=$((y ^ (y >> 18)))
  R=$((y & 0xFFFFFFFF))
}
# choice N M prints M indices in [0, N) as np.random.seed(42);
# np.random.choice(N, size=M): randint's masked rejection sampling.
choice() {
  local n=$1 m=$2 rng=$(($1 - 1)) mask j
  mt_seed 42
  mask=$rng
  for j in 1 2 4 8 16; do mask=$((mask | (mask >> j))); done
  for ((j = 0; j < m; j++)); do
    if ((rng == 0)); then echo 0; continue; fi
    while :; do
      mt_next
      R=$((R & mask))
      ((R <= rng)) && break
    done
    echo "$R"
  done
}

# Test hook: OPENIMAGES_CHOICE="N M" prints choice N M and exits.
if [ -n "${OPENIMAGES_CHOICE:-}" ]; then
  read -r n m <<< "$OPENIMAGES_CHOICE"
  choice "$n" "$m"
  exit 0
fi

ANN_DIR=$DATA_DIR/annotations
SPLIT=validation
OUT_JSON=openimages-mlperf.json
if [ "$CALIB" = 1 ]; then
  SPLIT=train
  OUT_JSON=openimages-calibration-mlperf.json
  [ -f "$CAL_LIST" ] || die "calibration list $CAL_LIST not found; give it with -l"
  IMG_DIR=$DATA_DIR/calibration/data
else
  IMG_DIR=$DATA_DIR/validation/data
fi
mkdir -p "$ANN_DIR" "$IMG_DIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# fetch URL OUT: download through OUT.part (resumed if present), with
# retries; a failure leaves no OUT.
fetch() {
  local url=$1 out=$2
  [ -f "$out" ] && return 0
  if ! curl -fsSL --retry 5 --retry-delay 1 --retry-connrefused -C - -o "$out.part" "$url"; then
    # A server that ignores the range of a complete .part answers 416.
    rm -f "$out.part"
    curl -fsSL --retry 5 --retry-delay 1 --retry-connrefused -o "$out.part" "$url" || { rm -f "$out.part"; return 1; }
  fi
  mv "$out.part" "$out"
}

# Images: one ImageID per line on stdin, downloaded JOBS at a time.
fetch_images() {
  export -f fetch
  export IMG_URL IMG_DIR SPLIT
  sort -u | xargs -r -P "$JOBS" -I{} bash -c 'fetch "$IMG_URL/$SPLIT/{}.jpg" "$IMG_DIR/{}.jpg" || { echo "download_dataset: $IMG_URL/$SPLIT/{}.jpg failed" >&2; exit 255; }' \
    || die "image downloads failed; run the script again to resume"
}

if [ "$RELEASED" = 1 ]; then
  ZIP=$ANN_DIR/openimages-mlperf_annotations_2.1.json.zip
  fetch "$REL_URL/openimages-mlperf_annotations_2.1.json.zip" "$ZIP" || die "download of the released annotations failed"
  got=$(md5sum "$ZIP" | cut -d' ' -f1)
  [ "$got" = "$ZIP_MD5" ] || { rm -f "$ZIP"; die "$ZIP has MD5 $got, want $ZIP_MD5; it was deleted"; }
  command -v unzip >/dev/null || die "unzip not found; install it (apt-get install unzip)"
  unzip -o -q -d "$WORK/zip" "$ZIP"
  json=$(find "$WORK/zip" -name '*.json' | head -1)
  [ -n "$json" ] || die "$ZIP holds no .json file"
  mv "$json" "$ANN_DIR/openimages-mlperf.json"
  grep -o '"file_name": *"[^"]*\.jpg"' "$ANN_DIR/openimages-mlperf.json" | sed 's/.*"\([^"]*\)\.jpg"$/\1/' | fetch_images
  echo "download_dataset: $(ls "$IMG_DIR" | grep -c '\.jpg$') images in $IMG_DIR, annotations in $ANN_DIR/openimages-mlperf.json"
  exit 0
fi

CLASSMAP=$ANN_DIR/class-descriptions-boxable.csv
if [ "$CALIB" = 1 ]; then
  BOXES=$ANN_DIR/oidv6-train-annotations-bbox.csv
  fetch "$TRAIN_URL/oidv6-train-annotations-bbox.csv" "$BOXES" || die "download of $TRAIN_URL/oidv6-train-annotations-bbox.csv failed"
else
  BOXES=$ANN_DIR/validation-annotations-bbox.csv
  fetch "$ANN_URL/validation-annotations-bbox.csv" "$BOXES" || die "download of $ANN_URL/validation-annotations-bbox.csv failed"
fi
fetch "$ANN_URL/class-descriptions-boxable.csv" "$CLASSMAP" || die "download of $ANN_URL/class-descriptions-boxable.csv failed"

for i in "${!CLASSES[@]}"; do printf '%d\t%s\n' "$i" "${CLASSES[$i]}"; done > "$WORK/classes.tsv"

# The ImageIDs with a box of an MLPerf class, in order of first appearance
# (get_image_list: pandas unique()); for -c those of the list.
if [ "$CALIB" = 1 ]; then
  { cat "$CAL_LIST"; echo; } | tr -d '\r' | sed -n 's/^\([^.]*\)\..*$/\1/p' > "$WORK/ids.txt"
else
awk -F, 'FILENAME == ARGV[1] { split($0, a, "\t"); want[a[2]] = 1; next }
  FILENAME == ARGV[2] { i = index($0, ","); if (substr($0, i + 1) in want) label[substr($0, 1, i - 1)] = 1; next }
  FNR > 1 && ($3 in label) && !seen[$1]++ { print $1 }' \
  "$WORK/classes.tsv" "$CLASSMAP" "$BOXES" | tr -d '\r' > "$WORK/ids.txt"
fi
total=$(wc -l < "$WORK/ids.txt")
[ "$total" -gt 0 ] || die "no image of the MLPerf classes in $BOXES"

if [ -n "$MAX" ]; then
  choice "$total" "$MAX" | awk 'NR == FNR { pick[NR] = $1; n = NR; next } { id[FNR - 1] = $0 } END { for (i = 1; i <= n; i++) print id[pick[i]] }' - "$WORK/ids.txt" > "$WORK/selected.txt"
else
  cp "$WORK/ids.txt" "$WORK/selected.txt"
fi
echo "download_dataset: $(sort -u "$WORK/selected.txt" | wc -l) images to fetch (of $total with MLPerf boxes)"
fetch_images < "$WORK/selected.txt"

# jpeg_dims FILE prints "height width" as cv2.imread sees the image: the
# frame size, swapped when the EXIF orientation (IFD0 tag 0x112) is 5..8.
u() { od -An -tu1 -v -j "$2" -N "$3" "$1"; }
jpeg_dims() {
  local f=$1 off=2 m1 m2 l1 l2 len orient=1 h w
  read -r m1 m2 < <(u "$f" 0 2)
  [ "${m1:-}" = 255 ] && [ "${m2:-}" = 216 ] || return 1
  while :; do
    read -r m1 m2 l1 l2 < <(u "$f" "$off" 4)
    [ "${m1:-}" = 255 ] || return 1
    if [ "$m2" = 255 ]; then off=$((off + 1)); continue; fi
    len=$((l1 * 256 + l2))
    case $m2 in
      225)
        if [ "$orient" = 1 ]; then
          local -a b
          read -r -a b < <(u "$f" $((off + 4)) $((len - 2)) | tr -s ' \n' '  ')
          if [ "${#b[@]}" -ge 14 ] && [ "${b[*]:0:6}" = "69 120 105 102 0 0" ]; then
            local le=0 t=6 ifd n e i tag
            [ "${b[6]}" = 73 ] && le=1
            r16() { if [ $le = 1 ]; then echo $((b[$1] + 256 * b[$1 + 1])); else echo $((256 * b[$1] + b[$1 + 1])); fi; }
            r32() { if [ $le = 1 ]; then echo $((b[$1] + 256 * b[$1 + 1] + 65536 * b[$1 + 2] + 16777216 * b[$1 + 3])); else echo $((16777216 * b[$1] + 65536 * b[$1 + 1] + 256 * b[$1 + 2] + b[$1 + 3])); fi; }
            ifd=$((t + $(r32 $((t + 4)))))
            if ((ifd + 2 <= ${#b[@]})); then
              n=$(r16 $ifd)
              for ((i = 0; i < n; i++)); do
                e=$((ifd + 2 + 12 * i))
                ((e + 12 <= ${#b[@]})) || break
                tag=$(r16 $e)
                if [ "$tag" = 274 ]; then orient=$(r16 $((e + 8))); break; fi
              done
            fi
          fi
        fi ;;
      192 | 193 | 194 | 195 | 197 | 198 | 199 | 201 | 202 | 203 | 205 | 206 | 207)
        read -r _ l1 l2 m1 m2 < <(u "$f" $((off + 4)) 5)
        h=$((l1 * 256 + l2))
        w=$((m1 * 256 + m2))
        if ((orient >= 5 && orient <= 8)); then echo "$w $h"; else echo "$h $w"; fi
        return 0 ;;
      217 | 218) return 1 ;;
    esac
    off=$((off + 2 + len))
  done
}

sort -u "$WORK/selected.txt" | while read -r id; do
  dims=$(jpeg_dims "$IMG_DIR/$id.jpg") || die "$IMG_DIR/$id.jpg is not a readable JPEG; delete it and run again"
  printf '%s %s\n' "$id" "$dims"
done > "$WORK/dims.txt"

# export_to_coco: images sorted by ImageID with ids from 1; annotations of
# the MLPerf classes for the selected images (an image drawn k times by -m
# has its boxes k times, as the reference's merge gives), numbered in
# pandas 1.x inner-merge order (grouped by ImageID, then by LabelName, in
# order of first appearance), written sorted by ImageID; numbers as
# Python's json.dump writes them.
LC_ALL=C awk -F, -v calib="$CALIB" '
function pyrepr(x,    p, s, e, mant, digits, ex, sign, out, k) {
  if (x == 0) return "0.0"
  for (p = 1; p <= 17; p++) { s = sprintf("%." p "g", x); if (s + 0 == x) break }
  s = sprintf("%." (p - 1) "e", x)
  sign = ""; if (substr(s, 1, 1) == "-") { sign = "-"; s = substr(s, 2) }
  e = index(s, "e"); mant = substr(s, 1, e - 1); ex = substr(s, e + 1) + 0
  digits = mant; sub(/\./, "", digits); sub(/0+$/, "", digits); if (digits == "") digits = "0"
  if (ex >= -4 && ex < 16) {
    if (ex >= 0) {
      while (length(digits) < ex + 1) digits = digits "0"
      out = substr(digits, 1, ex + 1) "." (length(digits) > ex + 1 ? substr(digits, ex + 2) : "0")
    } else {
      out = "0."; for (k = 1; k < -ex; k++) out = out "0"; out = out digits
    }
  } else {
    out = substr(digits, 1, 1); if (length(digits) > 1) out = out "." substr(digits, 2)
    out = substr(digits, 1, 1) (length(digits) > 1 ? "." substr(digits, 2) : "") "e" (ex < 0 ? "-" : "+") sprintf("%02d", ex < 0 ? -ex : ex)
  }
  return sign out
}
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
FILENAME == ARGV[1] { split($0, a, "\t"); cat[a[2]] = a[1]; name[a[1]] = a[2]; ncat++; next }
FILENAME == ARGV[2] { i = index($0, ","); d = substr($0, i + 1); sub(/\r$/, "", d); if (d in cat) lab[substr($0, 1, i - 1)] = cat[d]; next }
FILENAME == ARGV[3] { mult[$0]++; next }
FILENAME == ARGV[4] { split($0, a, " "); H[a[1]] = a[2]; W[a[1]] = a[3]; next }
FNR == 1 { next }
{
  sub(/\r$/, "")
  if (!($1 in mult)) next
  if (!($1 in g1)) { g1[$1] = ++ng1; g1id[ng1] = $1 }
  nr[$1]++; row[$1, nr[$1]] = $0
  all[++nall] = $0
}
END {
  # First merge: ImageID groups, each row repeated mult times. The
  # calibration export filters with np.isin instead: CSV order.
  n1 = 0
  if (calib) {
    for (r = 1; r <= nall; r++) f1[++n1] = all[r]
  } else {
    for (g = 1; g <= ng1; g++) {
      id = g1id[g]
      for (r = 1; r <= nr[id]; r++) for (k = 1; k <= mult[id]; k++) f1[++n1] = row[id, r]
    }
  }
  # Second merge: LabelName groups of MLPerf labels.
  n2 = 0
  for (r = 1; r <= n1; r++) { split(f1[r], c, ","); if ((c[3] in lab) && !(c[3] in g2)) { g2[c[3]] = ++ng2; g2l[ng2] = c[3] } }
  for (g = 1; g <= ng2; g++) for (r = 1; r <= n1; r++) { split(f1[r], c, ","); if (c[3] == g2l[g]) f2[++n2] = f1[r] }
  # Images with annotations, sorted by ImageID (calibration: in order of
  # first appearance, pd.factorize).
  ni = 0
  for (r = 1; r <= n2; r++) { split(f2[r], c, ","); if (!(c[1] in has)) { has[c[1]] = 1; ids[++ni] = c[1] } }
  if (!calib) for (i = 2; i <= ni; i++) { v = ids[i]; for (j = i - 1; j >= 1 && ids[j] > v; j--) ids[j + 1] = ids[j]; ids[j + 1] = v }
  for (i = 1; i <= ni; i++) rank[ids[i]] = i
  printf "{\"info\": {\"dataset\": \"openimages_mlperf\", \"version\": \"v6\"}, \"licenses\": [], \"categories\": ["
  for (i = 0; i < ncat; i++) printf "%s{\"id\": %d, \"name\": %s, \"supercategory\": null}", (i ? ", " : ""), i, jstr(name[i])
  printf "], \"images\": ["
  for (i = 1; i <= ni; i++) printf "%s{\"id\": %d, \"file_name\": \"%s.jpg\", \"height\": %d, \"width\": %d, \"license\": null, \"coco_url\": null}", (i > 1 ? ", " : ""), i, ids[i], H[ids[i]], W[ids[i]]
  printf "], \"annotations\": ["
  first = 1
  for (i = 1; i <= (calib ? 1 : ni); i++) {
    for (r = 1; r <= n2; r++) {
      split(f2[r], c, ",")
      if (!calib && c[1] != ids[i]) continue
      w = W[c[1]] + 0; h = H[c[1]] + 0
      x0 = c[5] * w; y0 = c[7] * h; bw = (c[6] - c[5]) * w; bh = (c[8] - c[7]) * h
      printf "%s{\"id\": %d, \"image_id\": %d, \"category_id\": %d, \"bbox\": [%s, %s, %s, %s], \"area\": %s, \"iscrowd\": %s, \"IsOccluded\": %s, \"IsInside\": %s, \"IsDepiction\": %s, \"IsTruncated\": %s, \"IsGroupOf\": %s}", \
        (first ? "" : ", "), r, rank[c[1]], lab[c[3]], pyrepr(x0), pyrepr(y0), pyrepr(bw), pyrepr(bh), pyrepr(bw * bh), c[11], c[9], c[13], c[12], c[10], c[11]
      first = 0
    }
  }
  printf "]}"
}' "$WORK/classes.tsv" "$CLASSMAP" "$WORK/selected.txt" "$WORK/dims.txt" "$BOXES" > "$WORK/openimages-mlperf.json"
mv "$WORK/openimages-mlperf.json" "$ANN_DIR/$OUT_JSON"
echo "download_dataset: $(sort -u "$WORK/selected.txt" | wc -l) images in $IMG_DIR, annotations in $ANN_DIR/$OUT_JSON"
