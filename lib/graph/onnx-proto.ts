/**
 * The one ONNX encoder of the tree: the protobuf wire format (proto2/proto3 share it) and the
 * handful of onnx.proto messages Graft writes by hand, so building a model needs neither Python
 * nor a protobuf package. Its users: the max-sim block kernel (`maxsim-onnx.ts`) and the test
 * fixture generator `scripts/fixtures/tiny-bert.ts`.
 *
 * Every function returns the encoded message bytes; a message field holds its sub-message's
 * bytes (`pbBytes`). Fields are written in the order given, which fixes the output byte for byte.
 */

type Bytes = Uint8Array;

// ── protobuf wire format ─────────────────────────────────────────────────────────────────

/** A base-128 varint; int64 values use 64-bit two's complement, so negatives take 10 bytes. */
export function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

/** The parts one after another. */
export function concatBytes(parts: readonly (Bytes | readonly number[])[]): Bytes {
  const len = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(len);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

const tag = (field: number, wire: number): number[] => varint((field << 3) | wire);

/** An integer field (int32, int64, enum). */
export const pbInt = (field: number, v: number | bigint): Bytes => concatBytes([tag(field, WIRE_VARINT), varint(v)]);

/** A float field (little-endian IEEE 754 single). */
export function pbFloat(field: number, v: number): Bytes {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, v, true);
  return concatBytes([tag(field, WIRE_FIXED32), b]);
}

/** A length-delimited field: bytes, or an encoded sub-message. */
export const pbBytes = (field: number, payload: Bytes): Bytes => concatBytes([tag(field, WIRE_LENGTH), varint(payload.length), payload]);

/** A string field (UTF-8). */
export const pbString = (field: number, s: string): Bytes => pbBytes(field, new TextEncoder().encode(s));

// ── onnx.proto ───────────────────────────────────────────────────────────────────────────

/** TensorProto.DataType values. */
export const ONNX_FLOAT = 1;
export const ONNX_INT32 = 6;
export const ONNX_INT64 = 7;

/** AttributeProto.AttributeType values. */
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** A node attribute: one int, one float or a list of ints. */
export type OnnxAttr = { name: string; int: number } | { name: string; float: number } | { name: string; ints: readonly number[] };

/** AttributeProto. */
export function onnxAttribute(a: OnnxAttr): Bytes {
  if ("int" in a) return concatBytes([pbString(1, a.name), pbInt(3, a.int), pbInt(20, ATTR_INT)]);
  if ("float" in a) return concatBytes([pbString(1, a.name), pbFloat(2, a.float), pbInt(20, ATTR_FLOAT)]);
  return concatBytes([pbString(1, a.name), ...a.ints.map((v) => pbInt(8, v)), pbInt(20, ATTR_INTS)]);
}

/** NodeProto named `name` (unique in its graph). */
export function onnxNode(op: string, inputs: readonly string[], outputs: readonly string[], attrs: readonly OnnxAttr[], name: string): Bytes {
  return concatBytes([
    ...inputs.map((s) => pbString(1, s)),
    ...outputs.map((s) => pbString(2, s)),
    pbString(3, name),
    pbString(4, op),
    ...attrs.map((a) => pbBytes(5, onnxAttribute(a))),
  ]);
}

/** ValueInfoProto of a tensor: numbers are fixed dimensions, strings symbolic ones. */
export function onnxValueInfo(name: string, elemType: number, dims: readonly (number | string)[]): Bytes {
  const shape = concatBytes(dims.map((d) => pbBytes(1, typeof d === "number" ? pbInt(1, d) : pbString(2, d))));
  const tensorType = concatBytes([pbInt(1, elemType), pbBytes(2, shape)]);
  return concatBytes([pbString(1, name), pbBytes(2, pbBytes(1, tensorType))]);
}

/** TensorProto with raw_data (little-endian, as typed arrays are on every platform Node runs on). */
export function onnxTensor(name: string, dims: readonly number[], data: Float32Array | Int32Array | BigInt64Array): Bytes {
  const elemType = data instanceof Float32Array ? ONNX_FLOAT : data instanceof Int32Array ? ONNX_INT32 : ONNX_INT64;
  return concatBytes([
    ...dims.map((d) => pbInt(1, d)),
    pbInt(2, elemType),
    pbString(8, name),
    pbBytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)),
  ]);
}

/** A 1-D int64 TensorProto (reshape targets, axes). */
export const onnxInt64Tensor = (name: string, values: readonly number[]): Bytes => onnxTensor(name, [values.length], BigInt64Array.from(values.map(BigInt)));

export interface OnnxGraph {
  name: string;
  /** NodeProto bytes, in topological order. */
  nodes: readonly Bytes[];
  /** TensorProto bytes. */
  initializers: readonly Bytes[];
  /** ValueInfoProto bytes. */
  inputs: readonly Bytes[];
  outputs: readonly Bytes[];
}

/** ModelProto bytes of one graph in the default domain (ir_version 8 goes with opset 17). */
export function onnxModel(graph: OnnxGraph, options: { producer: string; irVersion?: number; opset?: number }): Uint8Array {
  const g = concatBytes([
    ...graph.nodes.map((n) => pbBytes(1, n)),
    pbString(2, graph.name),
    ...graph.initializers.map((t) => pbBytes(5, t)),
    ...graph.inputs.map((v) => pbBytes(11, v)),
    ...graph.outputs.map((v) => pbBytes(12, v)),
  ]);
  const opset = concatBytes([pbString(1, ""), pbInt(2, options.opset ?? 17)]);
  return concatBytes([pbInt(1, options.irVersion ?? 8), pbString(2, options.producer), pbBytes(7, g), pbBytes(8, opset)]);
}
