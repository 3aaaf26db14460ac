// The public surface of lib/demo: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { disagreement, titleWords } from "./disagreement";
export { DEMO, type DemoExample } from "./examples";
