#!/usr/bin/python3
"""Writes inception_shapes.json: the name and shape of every weight and
batch-norm buffer of pytorch-fid's InceptionV3 up to its 2048-d pool3
features, which has torchvision's inception_v3 layers (its FIDInceptionA/C/E
blocks change only the pooling), without the aux classifier and fc.

Run with Debian's python3-torchvision (0.14):
    /usr/bin/python3 inception_shapes.py
"""
import json

import torchvision

m = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False)
shapes = {k: list(v.shape) for k, v in m.state_dict().items()
          if not k.endswith("num_batches_tracked") and not k.startswith("fc.")}
with open("inception_shapes.json", "w") as f:
    json.dump(shapes, f, indent=0, sort_keys=True)
    f.write("\n")
