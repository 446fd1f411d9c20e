#!/usr/bin/env python3
"""Golden for models/resnet50: a tiny ResNet50 v1.5 (every width / 16, as
the synthetic builder's "tiny") built and exported by PyTorch, with seeded
weights, and PyTorch's outputs on fixed inputs.

The network is the MLPerf TensorFlow reference's ResNet50 v1.5 (TF official
resnet_model.py, resnet_version 1, stride on the 3x3 convolution, 1001
classes): 7x7/2 stem with symmetric padding 3, batch norm (eps 1e-5),
3x3/2 max-pool with TF "SAME" padding (one row and column at the
bottom/right), bottleneck stages [3, 4, 6, 3], global average pool, dense
with bias, ArgMax and Softmax heads, under the official ONNX file's names
("input_tensor:0", "ArgMax:0", "softmax_tensor:0").

Writes, in the current folder:
  torch_tiny.onnx   torch.onnx.export of the model (opset 13, batch dynamic)
  weights.bin       every parameter as float32 little-endian, in the
  weights.txt       synthetic builder's names and layouts (weights.txt:
                    "name dim,dim,..." per tensor, in file order)
  softmax.npy       PyTorch's softmax [2, 1001] on the inputs below
  argmax.txt        PyTorch's ArgMax of each input
The inputs are x[n,c,h,w] = ((n*131 + c*71 + h*(31+40n) + w*(17+23n)) % 251) - 125,
float32, n < 2 (exact integers: the Go test makes the same).

Run with Debian's python3-torch 1.13: /usr/bin/python3 make_torch_tiny.py
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DIV = 16
EPS = 1e-5


def bn(c):
    return nn.BatchNorm2d(c, eps=EPS)


class Bottleneck(nn.Module):
    def __init__(self, cin, f, stride, project):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, f, 1, bias=False)
        self.bn1 = bn(f)
        self.conv2 = nn.Conv2d(f, f, 3, stride=stride, padding=1, bias=False)
        self.bn2 = bn(f)
        self.conv3 = nn.Conv2d(f, 4 * f, 1, bias=False)
        self.bn3 = bn(4 * f)
        self.down = None
        if project:
            self.down = nn.Conv2d(cin, 4 * f, 1, stride=stride, bias=False)
            self.down_bn = bn(4 * f)

    def forward(self, x):
        s = x if self.down is None else self.down_bn(self.down(x))
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return F.relu(y + s)


class ResNet50(nn.Module):
    def __init__(self):
        super().__init__()
        stem = 64 // DIV
        self.conv1 = nn.Conv2d(3, stem, 7, stride=2, padding=3, bias=False)
        self.bn1 = bn(stem)
        blocks = []
        cin = stem
        for s, (n, f) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
            f //= DIV
            for i in range(n):
                stride = 2 if (i == 0 and s > 0) else 1
                blocks.append((f"layer{s + 1}.{i}", Bottleneck(cin, f, stride, i == 0)))
                cin = 4 * f
        self.names = [n for n, _ in blocks]
        self.blocks = nn.ModuleList([b for _, b in blocks])
        self.fc = nn.Linear(cin, 1001)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.pad(x, (0, 1, 0, 1), value=float("-inf"))  # TF SAME
        x = F.max_pool2d(x, 3, 2)
        for b in self.blocks:
            x = b(x)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        logits = self.fc(x)
        return torch.argmax(logits, dim=1), torch.softmax(logits, dim=1)


def init(m):
    g = torch.Generator().manual_seed(20190312)

    def uni(t, lo, hi):
        with torch.no_grad():
            t.copy_(torch.rand(t.shape, generator=g) * (hi - lo) + lo)

    for mod in m.modules():
        if isinstance(mod, nn.Conv2d):
            fan_in = mod.weight[0].numel()
            with torch.no_grad():
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5)
        elif isinstance(mod, nn.BatchNorm2d):
            uni(mod.weight, 0.6, 1.0)
            uni(mod.bias, -0.05, 0.05)
            uni(mod.running_mean, -0.05, 0.05)
            uni(mod.running_var, 0.8, 1.2)
        elif isinstance(mod, nn.Linear):
            uni(mod.weight, -0.03, 0.03)
            uni(mod.bias, -0.01, 0.01)
    uni(m.bn1.running_var, 2500, 5000)  # the stem sees mean-subtracted pixels


def builder_weights(m):
    """(name, array) in the synthetic builder's names and layouts."""
    out = []

    def conv_bn(name, conv, b):
        out.append((name + ".weight", conv.weight))
        out.append((name + ".bn.gamma", b.weight))
        out.append((name + ".bn.beta", b.bias))
        out.append((name + ".bn.moving_mean", b.running_mean))
        out.append((name + ".bn.moving_variance", b.running_var))

    conv_bn("conv1", m.conv1, m.bn1)
    for name, b in zip(m.names, m.blocks):
        if b.down is not None:
            conv_bn(name + ".downsample", b.down, b.down_bn)
        conv_bn(name + ".conv1", b.conv1, b.bn1)
        conv_bn(name + ".conv2", b.conv2, b.bn2)
        conv_bn(name + ".conv3", b.conv3, b.bn3)
    out.append(("fc.weight", m.fc.weight.t()))  # Gemm without transB: [in, 1001]
    out.append(("fc.bias", m.fc.bias))
    return [(n, t.detach().numpy().astype(np.float32)) for n, t in out]


def inputs():
    n, c, h, w = np.meshgrid(np.arange(2), np.arange(3), np.arange(224), np.arange(224), indexing="ij")
    return (((n * 131 + c * 71 + h * (31 + 40 * n) + w * (17 + 23 * n)) % 251) - 125).astype(np.float32)


def main():
    torch.manual_seed(0)
    m = ResNet50().eval()
    init(m)
    x = torch.from_numpy(inputs())
    with torch.no_grad():
        am, sm = m(x)
    torch.onnx.export(m, x, "torch_tiny.onnx", opset_version=13, input_names=["input_tensor:0"],
                      output_names=["ArgMax:0", "softmax_tensor:0"],
                      dynamic_axes={"input_tensor:0": {0: "N"}, "ArgMax:0": {0: "N"}, "softmax_tensor:0": {0: "N"}})
    with open("weights.bin", "wb") as fb, open("weights.txt", "w") as ft:
        for name, a in builder_weights(m):
            fb.write(np.ascontiguousarray(a).astype("<f4").tobytes())
            ft.write(f"{name} {','.join(str(d) for d in a.shape)}\n")
    np.save("softmax.npy", sm.numpy().astype(np.float32))
    with open("argmax.txt", "w") as f:
        f.write(" ".join(str(int(v)) for v in am) + "\n")


if __name__ == "__main__":
    main()
