#!/usr/bin/python3
"""Writes the coco2017 filter fixtures (test tooling, not part of the Go
build):

    /usr/bin/python3 datasets/coco2017/testdata/gen_golden.py

  source_instances_val2017.json  a small COCO-layout annotation file with
                                 the cases the filter must get right
                                 (every COCO licence, a licence id given
                                 as 4.0, an unknown licence id, a licence
                                 id redefined later, non-ASCII text, float
                                 and RLE segmentations, no "info" key)
  safe_instances_val2017.json    what the reference's
                                 create_safe_annotations.py writes for it,
                                 recomputed here with the same steps
                                 (json.load, licence-URL keyword filter,
                                 json.dump with default settings)
  safe_files.json                the safe images' file names, in order
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

SAFE_KEYWORDS = [
    "creativecommons.org/licenses/by/",
    "creativecommons.org/licenses/by-sa/",
    "creativecommons.org/licenses/by-nd",
    "flickr.com/commons/usage",
    "www.usa.gov",
]

SOURCE = r'''{"licenses": [{"url": "http://creativecommons.org/licenses/by-nc-sa/2.0/","id": 1,"name": "Attribution-NonCommercial-ShareAlike License"},{"url": "http://creativecommons.org/licenses/by-nc/2.0/","id": 2,"name": "Attribution-NonCommercial License"},{"url": "http://creativecommons.org/licenses/by-nc-nd/2.0/","id": 3,"name": "Attribution-NonCommercial-NoDerivs License"},{"url": "http://creativecommons.org/licenses/by/2.0/","id": 4,"name": "Attribution License"},{"url": "http://creativecommons.org/licenses/by-sa/2.0/","id": 5,"name": "Attribution-ShareAlike License"},{"url": "http://creativecommons.org/licenses/by-nd/2.0/","id": 6,"name": "Attribution-NoDerivs License"},{"url": "http://flickr.com/commons/usage/","id": 7,"name": "No known copyright restrictions"},{"url": "HTTP://WWW.USA.GOV/copyright.shtml","id": 8,"name": "United States Government Work"},{"url": "http://example.org/none","id": 9,"name": "Nothing safe"},{"id": 10,"name": "No URL"},{"url": "http://creativecommons.org/licenses/by/4.0/","id": 2,"name": "Redefined: CC BY 4.0"}],
"images": [{"license": 4,"file_name": "000000397133.jpg","coco_url": "http://images.cocodataset.org/val2017/000000397133.jpg","height": 427,"width": 640,"date_captured": "2013-11-14 17:02:52","flickr_url": "http://farm7.staticflickr.com/6116/6255196340_da26cf2c9e_z.jpg","id": 397133},
{"license": 1,"file_name": "000000037777.jpg","height": 230,"width": 352,"id": 37777},
{"license": 5,"file_name": "000000252219.jpg","height": 428,"width": 640,"id": 252219},
{"license": 3,"file_name": "000000087038.jpg","height": 480,"width": 640,"id": 87038},
{"license": 6.0,"file_name": "000000174482.jpg","height": 388,"width": 640,"id": 174482},
{"license": 7,"file_name": "000000403385.jpg","height": 640,"width": 427,"id": 403385,"note": "caf\u00e9 \u65e5\u672c \ud83d\ude00 tab\there"},
{"license": 8,"file_name": "000000006818.jpg","height": 640,"width": 427,"id": 6818},
{"license": 9,"file_name": "000000480985.jpg","height": 500,"width": 375,"id": 480985},
{"license": 10,"file_name": "000000458054.jpg","height": 426,"width": 640,"id": 458054},
{"license": 99,"file_name": "000000331352.jpg","height": 500,"width": 375,"id": 331352},
{"license": 2,"file_name": "000000296649.jpg","height": 427,"width": 640,"id": 296649}],
"annotations": [{"segmentation": [[239.97,260.24,222.04,270.49,199.84,253.41,213.5,227.79,259.62,200.46,274.13,202.17,277.55,210.71,249.37,253.41,237.41,264.51,242.54,261.95,228.87,271.34]],"area": 2765.1486500000005,"iscrowd": 0,"image_id": 397133,"bbox": [199.84,200.46,77.71,70.88],"category_id": 44,"id": 82445},
{"segmentation": [[1e2,2.50,3.0e1,4]],"area": 1.0e-5,"iscrowd": 0,"image_id": 37777,"bbox": [1,2,3,4],"category_id": 1,"id": 1},
{"segmentation": {"counts": [66916,6,587,10,584,13,582],"size": [428,640]},"area": 20.0,"iscrowd": 1,"image_id": 252219,"bbox": [104,0,13,15],"category_id": 1,"id": 900100252219},
{"segmentation": [[0,0,1,1]],"area": 12345678901234567.0,"iscrowd": 0,"image_id": 174482,"bbox": [0.0,0,1,1],"category_id": 3,"id": 7},
{"segmentation": [[5,5,6,6]],"area": 0.0001,"iscrowd": 0,"image_id": 296649,"bbox": [5,5,1,1],"category_id": 90,"id": 8},
{"segmentation": [[5,5,6,6]],"area": 3,"iscrowd": 0,"image_id": 480985,"bbox": [5,5,1,1],"category_id": 18,"id": 9},
{"segmentation": [[5,5,6,6]],"area": 3,"iscrowd": 0,"image_id": 6818,"bbox": [5,5,1,1],"category_id": 999,"id": 10}],
"categories": [{"supercategory": "person","id": 1,"name": "person"},{"supercategory": "vehicle","id": 3,"name": "car"},{"supercategory": "animal","id": 18,"name": "dog"},{"supercategory": "kitchen","id": 44,"name": "bottle"},{"supercategory": "indoor","id": 90,"name": "toothbrush"}]}
'''


def create_safe_annotations(coco):
    """The steps of the reference's create_safe_annotations.py."""
    licenses = {l["id"]: l for l in coco["licenses"]}
    safe_images = []
    for img in coco["images"]:
        lic = licenses.get(img["license"], {})
        url = lic.get("url", "").lower()
        if any(k in url for k in SAFE_KEYWORDS):
            safe_images.append(img)
    safe_image_ids = {img["id"] for img in safe_images}
    safe_annotations = [ann for ann in coco["annotations"] if ann["image_id"] in safe_image_ids]
    return {
        "info": coco.get("info", {}),
        "licenses": coco.get("licenses", []),
        "images": safe_images,
        "annotations": safe_annotations,
        "categories": coco.get("categories", []),
    }, [img["file_name"] for img in safe_images]


def main():
    with open(os.path.join(HERE, "source_instances_val2017.json"), "w") as f:
        f.write(SOURCE)
    with open(os.path.join(HERE, "source_instances_val2017.json")) as f:
        coco = json.load(f)
    safe, files = create_safe_annotations(coco)
    with open(os.path.join(HERE, "safe_instances_val2017.json"), "w") as f:
        json.dump(safe, f)
    with open(os.path.join(HERE, "safe_files.json"), "w") as f:
        json.dump(files, f)


if __name__ == "__main__":
    main()
