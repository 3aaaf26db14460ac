/**
 * The max-sim block kernel as an ONNX model, written in code (lib/graph/onnx-proto.ts encodes it),
 * so no Python and no model file are needed at run time. `MaxSimEngine` (maxsim-engine.ts) runs it.
 * For a chunk pair (q, t) of papers with nq and nt items each:
 *
 *   S  = Gemm(Q, Tᵀ)                                    [bq·nq, bt·nt]  item cosines
 *   S4 = Reshape(S, [bq, nq, bt, nt])
 *   u  = mean_i max_j S4 + mean_j max_i S4              [bq, bt]   (s = u/4 + 1/2, eqn:maxsim rescaled)
 *   TopK(u, axis 1), TopK(uᵀ, axis 1), Gather(u, linked pairs)
 */
import { type OnnxAttr, ONNX_FLOAT, ONNX_INT32, ONNX_INT64, onnxInt64Tensor, onnxModel, onnxNode, onnxValueInfo } from "./onnx-proto";

/** A node named after its op and first output (unique in the kernel's graph). */
const node = (op: string, inputs: string[], outputs: string[], attrs: OnnxAttr[] = []): Uint8Array =>
  onnxNode(op, inputs, outputs, attrs, `${op}_${outputs[0]}`);

/**
 * The block kernel as ONNX ModelProto bytes (opset 17). Item counts are dynamic (fed as reshape
 * targets), but the model is specialised on whether each side has exactly one item per paper:
 * a reduction over a size-1 axis would still be a full pass over the [bq·nq, bt·nt] similarity
 * matrix, and for 1-item papers such a pass costs a sizeable share of the product itself,
 * while a Reshape is free in onnxruntime (no copy). Few variants also mean few sessions, each
 * of which keeps its own memory arena.
 *
 * Outputs hold u = mean_i max_j + mean_j max_i, or the cosine itself when nq = nt = 1 (see
 * `kernelScoreScale`); the rescale to s is applied in JS to the few values kept. The column
 * top-K runs on the transposed matrix because TopK along axis 0 walks memory with a stride and
 * measured slower than Transpose + TopK along axis 1. `rowsOnly` models skip the column top-K:
 * diagonal blocks (q = t) get it from the symmetric rows, and a single query needs only its row.
 * Input `pairs` holds flat indices a·bt + b of the linked pairs whose u is returned as `pairVals`.
 */
export function buildMaxSimBlockModel(nq: number, nt: number, rowsOnly: boolean): Uint8Array {
  const q1 = nq === 1;
  const t1 = nt === 1;
  const nodes: Uint8Array[] = [node("Gemm", ["Q", "T"], ["S"], [{ name: "transB", int: 1 }])];
  const inits: Uint8Array[] = [onnxInt64Tensor("flat1", [-1])];
  let score = "S";
  if (!q1 || !t1) {
    // shape4 = [bq, nq, bt, nt]; shape3 = [bq, nq, bt] when nt = 1, [bq, bt, nt] when nq = 1.
    nodes.push(node("Reshape", ["S", "shape4"], ["S4"]));
    if (q1 || t1) inits.push(onnxInt64Tensor("flat2", [0, -1])); // 0 copies the input's dim, -1 takes the rest
    // q → t direction: max over t's items, mean over q's items.
    nodes.push(
      t1
        ? node("Reshape", ["S", "shape3"], ["rowMax"])
        : node(
            "ReduceMax",
            ["S4"],
            ["rowMax"],
            [
              { name: "axes", ints: [3] },
              { name: "keepdims", int: 0 },
            ],
          ),
    );
    nodes.push(
      q1
        ? node("Reshape", ["rowMax", "flat2"], ["qToT"])
        : node(
            "ReduceMean",
            ["rowMax"],
            ["qToT"],
            [
              { name: "axes", ints: [1] },
              { name: "keepdims", int: 0 },
            ],
          ),
    );
    // t → q direction: max over q's items, mean over t's items.
    nodes.push(
      q1
        ? node("Reshape", ["S", "shape3"], ["colMax"])
        : node(
            "ReduceMax",
            ["S4"],
            ["colMax"],
            [
              { name: "axes", ints: [1] },
              { name: "keepdims", int: 0 },
            ],
          ),
    );
    nodes.push(
      t1
        ? node("Reshape", ["colMax", "flat2"], ["tToQ"])
        : node(
            "ReduceMean",
            ["colMax"],
            ["tToQ"],
            [
              { name: "axes", ints: [2] },
              { name: "keepdims", int: 0 },
            ],
          ),
    );
    nodes.push(node("Add", ["qToT", "tToQ"], ["score"]));
    score = "score";
  }
  nodes.push(node("TopK", [score, "kRow"], ["rowVals", "rowIdx64"], [{ name: "axis", int: 1 }]));
  nodes.push(node("Cast", ["rowIdx64"], ["rowIdx"], [{ name: "to", int: ONNX_INT32 }]));
  nodes.push(node("Reshape", [score, "flat1"], ["scoreFlat"]));
  nodes.push(node("Gather", ["scoreFlat", "pairs"], ["pairVals"], [{ name: "axis", int: 0 }]));
  const inputs = [onnxValueInfo("Q", ONNX_FLOAT, ["rq", "d"]), onnxValueInfo("T", ONNX_FLOAT, ["rt", "d"])];
  if (!q1 || !t1) inputs.push(onnxValueInfo("shape4", ONNX_INT64, [4]));
  if (q1 !== t1) inputs.push(onnxValueInfo("shape3", ONNX_INT64, [3]));
  inputs.push(onnxValueInfo("kRow", ONNX_INT64, [1]), onnxValueInfo("pairs", ONNX_INT32, ["m"]));
  const outputs = [
    onnxValueInfo("rowVals", ONNX_FLOAT, ["bq", "kr"]),
    onnxValueInfo("rowIdx", ONNX_INT32, ["bq", "kr"]),
    onnxValueInfo("pairVals", ONNX_FLOAT, ["m"]),
  ];
  if (!rowsOnly) {
    nodes.push(node("Transpose", [score], ["scoreT"], [{ name: "perm", ints: [1, 0] }]));
    nodes.push(node("TopK", ["scoreT", "kCol"], ["colVals", "colIdx64"], [{ name: "axis", int: 1 }]));
    nodes.push(node("Cast", ["colIdx64"], ["colIdx"], [{ name: "to", int: ONNX_INT32 }]));
    inputs.push(onnxValueInfo("kCol", ONNX_INT64, [1]));
    outputs.push(onnxValueInfo("colVals", ONNX_FLOAT, ["bt", "kc"]), onnxValueInfo("colIdx", ONNX_INT32, ["bt", "kc"]));
  }
  const name = `maxsim_${q1 ? "1" : "n"}x${t1 ? "1" : "n"}${rowsOnly ? "_rows" : ""}`;
  return onnxModel({ name, nodes, initializers: inits, inputs, outputs }, { producer: "graft", irVersion: 8, opset: 17 });
}

/** Maps the kernel's raw output u to the rescaled facet score s = u·scale + 1/2 in [0, 1]. */
export function kernelScoreScale(nq: number, nt: number): number {
  return nq === 1 && nt === 1 ? 0.5 : 0.25;
}
