#!/usr/bin/python3
"""Writes golden.json for the pyjson tests: JSON texts and what Python's
json.dumps(json.loads(text)) makes of them (default settings). Test
tooling, not part of the Go build:

    /usr/bin/python3 internal/pyjson/testdata/gen_golden.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

TEXTS = [
    '{"info": {"description": "COCO 2017 Dataset","url": "http://cocodataset.org","version": "1.0","year": 2017}}',
    '{"b":1,"a":[1,2,{"z":null,"y":true,"x":false}],"c":{}}',
    '[]', '{}', '[[], {}, [{}]]', '  \n\t[ 1 ,2 ]  ',
    '[0, -0, 7, -12, 123456789012345678901234567890, 1.0, -0.0, 0.1, 1e5, 1E5, 2.5e-3, 1e16, 9999999999999998.0, '
    '1e15, 1e-4, 9.999e-5, 1e-5, 5e-324, 1.7976931348623157e308, 1e400, -1e400, 1e-400, 473.07, 395.93, 0.30000000000000004, '
    '100.0e0, 12345678901234567890.0, 3.141592653589793]',
    '["plain", "quote \\" backslash \\\\ slash /", "\\n\\r\\t\\b\\f", "\\u0000\\u001f\\u007f", "caf\\u00e9", "日本",'
    ' "\\ud83d\\ude00", "😀", "mixed é😀x", "~ !"]',
    '{"segmentation": [[239.97, 260.24, 222.04, 270.49, 199.84]], "area": 2765.1486500000005, "iscrowd": 0, '
    '"image_id": 289343, "bbox": [473.07, 395.93, 38.65, 28.67], "category_id": 18, "id": 1768}',
    '{"license": 4, "file_name": "000000397133.jpg", "coco_url": "http://images.cocodataset.org/val2017/000000397133.jpg",'
    ' "height": 427, "width": 640, "date_captured": "2013-11-14 17:02:52", "flickr_url": "http://farm7.staticflickr.com/6116/6255196340_da26cf2c9e_z.jpg", "id": 397133}',
]


def main():
    cases = [{"in": t, "out": json.dumps(json.loads(t))} for t in TEXTS]
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
