import assert from "node:assert/strict";
import { test } from "node:test";
import * as ort from "onnxruntime-node";
import { concatBytes, ONNX_FLOAT, onnxAttribute, onnxInt64Tensor, onnxModel, onnxNode, onnxValueInfo, pbFloat, pbInt, pbString, varint } from "./onnx-proto";

test("varints: 7 bits a byte, low first; negatives as 64-bit two's complement", () => {
  assert.deepEqual(varint(0), [0]);
  assert.deepEqual(varint(1), [1]);
  assert.deepEqual(varint(300), [0xac, 0x02]);
  assert.deepEqual(varint(-1), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
  assert.deepEqual(varint(2n ** 40n), [0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
});

test("fields: tag = field << 3 | wire type", () => {
  assert.deepEqual([...pbInt(1, 150)], [0x08, 0x96, 0x01]);
  assert.deepEqual([...pbString(2, "hi")], [0x12, 2, 0x68, 0x69]);
  assert.deepEqual([...pbFloat(2, 1)], [0x15, 0x00, 0x00, 0x80, 0x3f]);
  assert.deepEqual([...concatBytes([[1], Uint8Array.of(2, 3), []])], [1, 2, 3]);
});

test("attributes: name, value, type (INT 2, FLOAT 1, INTS 7)", () => {
  assert.deepEqual([...onnxAttribute({ name: "a", int: 3 })], [0x0a, 1, 0x61, 0x18, 3, 0xa0, 0x01, 2]);
  assert.deepEqual([...onnxAttribute({ name: "a", ints: [1, 2] })], [0x0a, 1, 0x61, 0x40, 1, 0x40, 2, 0xa0, 0x01, 7]);
  assert.deepEqual([...onnxAttribute({ name: "a", float: 1 })], [0x0a, 1, 0x61, 0x15, 0x00, 0x00, 0x80, 0x3f, 0xa0, 0x01, 1]);
});

test("a model it encodes runs in onnxruntime", async () => {
  // y = 2 · Reshape(x, [-1]): a float input with a symbolic dimension, an int64 initializer, two nodes.
  const model = onnxModel(
    {
      name: "probe",
      nodes: [onnxNode("Reshape", ["x", "flat"], ["xf"], [], "r"), onnxNode("Add", ["xf", "xf"], ["y"], [], "a")],
      initializers: [onnxInt64Tensor("flat", [-1])],
      inputs: [onnxValueInfo("x", ONNX_FLOAT, ["n", 2])],
      outputs: [onnxValueInfo("y", ONNX_FLOAT, ["m"])],
    },
    { producer: "test" },
  );
  const session = await ort.InferenceSession.create(model);
  try {
    const out = await session.run({ x: new ort.Tensor("float32", Float32Array.of(1, 2, 3, 4), [2, 2]) });
    assert.deepEqual([...(out.y.data as Float32Array)], [2, 4, 6, 8]);
  } finally {
    await session.release();
  }
});
