# Regenerates the selection golden of select_test.go:
#  - annotations.json: a small synthetic captions_val2014.json (images with
#    several captions, captions with newlines, spaces and quotes, an
#    annotation whose image is not listed);
#  - selection.tsv: what text_to_image/tools/coco.py (mlcommons/inference)
#    makes of it with --max-images 25 --seed 2023, its pandas steps
#    repeated here (drop_duplicates on image_id, sort by id,
#    sample(frac=1, random_state=seed), first max, caption clean-up, inner
#    merge with the images, sort by id, to_csv with tabs);
#  - permutation.json: numpy.random.RandomState(2023).permutation(40504)
#    (40504 is the number of COCO val2014 images), its first and last 20
#    values and the sum of i*p[i] over all of it.
import json
import random

import numpy as np
import pandas as pd

rnd = random.Random(7)
words = ["a", "man", "dog", "red", "bus", "on", "the", "street", "with", "two", "cats", "table"]
images, anns = [], []
for i in range(40):
    iid = 1000 + 17 * i
    if i != 39:
        images.append({"license": 1, "file_name": "COCO_val2014_%012d.jpg" % iid,
                       "coco_url": "http://images.cocodataset.org/val2014/COCO_val2014_%012d.jpg" % iid,
                       "height": 300 + i, "width": 640 - i, "date_captured": "2013", "flickr_url": "x", "id": iid})
    for k in range(1 + i % 3):
        cap = " ".join(rnd.choice(words) for _ in range(6))
        if i % 7 == 0:
            cap = " " + cap + ".\n"
        if i % 11 == 0:
            cap = 'A sign that says "' + cap.strip() + '"'
        anns.append({"image_id": iid, "id": rnd.randrange(1, 10**6), "caption": cap})
rnd.shuffle(anns)
json.dump({"images": images, "annotations": anns}, open("annotations.json", "w"), indent=0)

with open("annotations.json") as f:
    captions = json.load(f)
df_annotations = pd.DataFrame(captions["annotations"])
df_images = pd.DataFrame(captions["images"])
df_annotations = df_annotations.drop_duplicates(subset=["image_id"], keep="first")
df_annotations = df_annotations.sort_values(by=["id"])
df_annotations = df_annotations.sample(frac=1, random_state=2023).reset_index(drop=True)
df_annotations = df_annotations.iloc[:25]
df_annotations["caption"] = df_annotations["caption"].apply(lambda x: x.replace("\n", "").strip())
df_annotations = (df_annotations.merge(df_images, how="inner", left_on="image_id", right_on="id")
                  .drop(["id_y"], axis=1).rename(columns={"id_x": "id"}).sort_values(by=["id"]).reset_index(drop=True))
df_annotations[["id", "image_id", "caption", "height", "width", "file_name", "coco_url"]].to_csv(
    "selection.tsv", sep="\t", index=False)

p = np.random.RandomState(2023).permutation(40504)
json.dump({"n": 40504, "head": p[:20].tolist(), "tail": p[-20:].tolist(),
           "weighted_sum": int(np.sum(np.arange(40504, dtype=np.int64) * p))}, open("permutation.json", "w"))
