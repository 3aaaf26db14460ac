// The public surface of lib/security: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { redactSecrets } from "./redact";
