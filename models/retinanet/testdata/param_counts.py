#!/usr/bin/python3
"""Writes param_counts.json: the number of elements of every weight and
buffer of torchvision's RetinaNet ResNeXt50-32x4d FPN with 264 classes (the
architecture of the MLPerf model, mlcommons/training
single_stage_detector/ssd/model/retinanet.py: frozen batch norm,
returned_layers [2, 3, 4], LastLevelP6P7(256, 256)), summed by group:
backbone.conv1/bn1, backbone.layer1..4, fpn.inner_blocks, fpn.layer_blocks,
fpn.extra_blocks, head.classification_head, head.regression_head. The
torch names backbone.body.X and backbone.fpn.X are written as backbone.X
and fpn.X, the names arch.go gives its initializers.

Run with Debian's python3-torchvision (0.14):
    /usr/bin/python3 param_counts.py
"""
import json

from torchvision.models import resnext50_32x4d
from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
from torchvision.models.detection.retinanet import RetinaNet
from torchvision.ops import misc
from torchvision.ops.feature_pyramid_network import LastLevelP6P7

body = resnext50_32x4d(weights=None, norm_layer=misc.FrozenBatchNorm2d)
backbone = _resnet_fpn_extractor(body, 3, returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256))
model = RetinaNet(backbone, num_classes=264)
groups = {}
for name, t in model.state_dict().items():
    name = name.replace("backbone.body.", "backbone.").replace("backbone.fpn.", "fpn.")
    parts = name.split(".")
    key = ".".join(parts[:2])
    if key in ("backbone.conv1", "backbone.bn1"):
        key = "backbone.stem"
    groups[key] = groups.get(key, 0) + t.numel()
with open("param_counts.json", "w") as f:
    json.dump(dict(sorted(groups.items())), f, indent=1)
    f.write("\n")
