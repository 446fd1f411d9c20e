#!/usr/bin/python3
# Writes TensorProto files with the reference ONNX Python package (Debian
# python3-onnx 1.12, numpy) and, in want.txt, what each holds, for
# onnx/read_test.go. Run from this folder: /usr/bin/python3 make_golden.py
#
# want.txt: one line per file: file name, tensor name, numpy dtype, dims
# (comma-separated, "-" for a scalar), then the elements (float types as
# float.hex() strings, integers and bools in decimal), or "error" for a
# file that ReadTensor must refuse.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

cases = []


def add(fname, tensor, arr):
    with open(fname, "wb") as f:
        f.write(tensor.SerializeToString())
    if arr is None:
        cases.append(f"{fname} {tensor.name} error")
        return
    dims = ",".join(str(d) for d in arr.shape) or "-"
    if arr.dtype.kind == "f":
        vals = [float(v).hex() for v in arr.astype(np.float64).ravel()]
    else:
        vals = [str(int(v)) for v in arr.ravel()]
    cases.append(" ".join([fname, tensor.name, str(arr.dtype), dims] + vals))


f32 = np.array([[1.5, -0.0, np.inf], [-np.inf, np.nan, 3.4028234663852886e38]], dtype=np.float32)
add("f32_raw.pb", numpy_helper.from_array(f32, "f32_raw"), f32)
f32t = np.array([0.1, -2.5, 1e-40, 7.0], dtype=np.float32)
add("f32_typed.pb", helper.make_tensor("f32_typed", TensorProto.FLOAT, [2, 2], f32t.tolist(), raw=False), f32t.reshape(2, 2))
i64 = np.array([-(2**63), -1, 0, 2**63 - 1, 123456789012], dtype=np.int64)
add("i64_typed.pb", helper.make_tensor("i64_typed", TensorProto.INT64, [5], i64.tolist(), raw=False), i64)
add("i64_raw.pb", numpy_helper.from_array(i64, "i64_raw"), i64)
i32 = np.array([[-(2**31), -7], [0, 2**31 - 1]], dtype=np.int32)
add("i32_typed.pb", helper.make_tensor("i32_typed", TensorProto.INT32, [2, 2], i32.ravel().tolist(), raw=False), i32)
i8 = np.array([-128, -1, 0, 127], dtype=np.int8)
add("i8_typed.pb", helper.make_tensor("i8_typed", TensorProto.INT8, [4], i8.tolist(), raw=False), i8)
add("i8_raw.pb", numpy_helper.from_array(i8, "i8_raw"), i8)
u8 = np.arange(0, 256, 51, dtype=np.uint8).reshape(2, 3)
add("u8_raw.pb", numpy_helper.from_array(u8, "u8_raw"), u8)
b = np.array([True, False, True], dtype=bool)
add("bool_typed.pb", helper.make_tensor("bool_typed", TensorProto.BOOL, [3], b.tolist(), raw=False), b)
add("bool_raw.pb", numpy_helper.from_array(b, "bool_raw"), b)
h = np.array([1.0, -2.0, 65504.0, 6e-8, np.inf], dtype=np.float16)
add("f16_typed.pb", helper.make_tensor("f16_typed", TensorProto.FLOAT16, [5], h.tolist(), raw=False), h)
add("f16_raw.pb", numpy_helper.from_array(h, "f16_raw"), h)
d = np.array([np.pi, -1e300, 5e-324], dtype=np.float64)
add("f64_typed.pb", helper.make_tensor("f64_typed", TensorProto.DOUBLE, [3], d.tolist(), raw=False), d)
u32 = np.array([0, 1, 2**32 - 1], dtype=np.uint32)
add("u32_typed.pb", helper.make_tensor("u32_typed", TensorProto.UINT32, [3], u32.tolist(), raw=False), u32)
u64 = np.array([0, 2**53, 2**64 - 2**11], dtype=np.uint64)
add("u64_raw.pb", numpy_helper.from_array(u64, "u64_raw"), u64)
i16 = np.array([-32768, 32767, -2], dtype=np.int16)
add("i16_raw.pb", numpy_helper.from_array(i16, "i16_raw"), i16)
u16 = np.array([0, 65535], dtype=np.uint16)
add("u16_typed.pb", helper.make_tensor("u16_typed", TensorProto.UINT16, [2], u16.tolist(), raw=False), u16)
s = np.array(2.25, dtype=np.float32)
add("scalar.pb", numpy_helper.from_array(s, "scalar"), s)
e = np.zeros((0, 3), dtype=np.float32)
add("empty.pb", numpy_helper.from_array(e, "empty"), e)
add("string.pb", helper.make_tensor("string", TensorProto.STRING, [2], [b"a", b"b"]), None)

with open("want.txt", "w") as f:
    f.write("\n".join(cases) + "\n")
