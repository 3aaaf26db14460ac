// Secrets must never reach logs, job records or error messages shown in the admin area. Stages
// read credentials from the environment, but an error message can still quote a connection
// string or a request header; these patterns cut the secret part out before anything is stored.

const PATTERNS: [RegExp, string][] = [
  // user:password@ in any URL (postgresql://graft:hunter2@db:5432/graft)
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi, "$1:***@"],
  // Authorization headers and bearer tokens
  [/\b(authorization\s*[:=]\s*)(?:bearer|basic|token)?\s*[^\s,;"']+/gi, "$1***"],
  [/\bbearer\s+[a-z0-9._~+/-]+=*/gi, "Bearer ***"],
  // key=value / "key": "value" for names that hold secrets
  [/\b((?:api[_-]?key|secret|password|passwd|token|access[_-]?key|session)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi, "$1***"],
  // well-known key shapes: OpenAI-style sk-…, GitHub, AWS access key ids
  [/\bsk-[a-z0-9_-]{16,}/gi, "sk-***"],
  [/\bgh[pousr]_[a-z0-9]{20,}/gi, "gh*_***"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "AKIA***"],
];

/** The text with every recognised secret replaced by ***. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  // Values of secret-bearing environment variables, wherever they appear verbatim.
  for (const value of secretEnvValues()) out = out.split(value).join("***");
  return out;
}

const SECRET_ENV = /(KEY|SECRET|TOKEN|PASSWORD|PASSWD|DATABASE_URL|_URL)$/;

function secretEnvValues(): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(process.env)) {
    if (!value || value.length < 8 || !SECRET_ENV.test(name)) continue;
    // URLs are only secret for their password, handled above; a whole URL is not worth hiding.
    if (name.endsWith("_URL")) {
      const m = /:\/\/[^\s:/@]+:([^\s@/]+)@/.exec(value);
      if (m && m[1].length >= 4) values.push(m[1]);
      continue;
    }
    values.push(value);
  }
  return values;
}
