/**
 * Every setting Graft reads from the environment, in one place: its variable, its default and a
 * one-line description (the README's "Configuration" table is made from this list, and a test
 * keeps the two equal). In the spirit of create-t3-app's env.js, framework-free:
 *
 *   import { config } from "@/lib/config";
 *   const beams = config().GRAFT_BEAMS; // a number, validated, defaulted
 *
 * `config()` parses the whole environment with zod on first use and hands back the same frozen
 * object afterwards. A bad value is an error naming its variable (`GRAFT_BEAMS="many": expected a
 * whole number ≥ 1`), listing every bad variable at once, so a typo in a deployment stops it
 * instead of silently falling back to a default. The parse is read-through: when a variable of
 * this list has changed since (tests set process.env between cases), the next call parses again.
 * `parseConfig(env)` parses any plain object (tests; functions taking an `env` argument).
 *
 * Nothing else in the tree reads these variables from process.env (lib/config.test.ts checks).
 * Derived paths (the data root, the models folder, …) are in lib/paths.ts. Server-only: client
 * components never import this.
 */
import { z } from "zod";

/** An environment to read settings from: process.env, or a plain object in tests. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The paper's retrieval parameters: the defaults of the options that take them. */
export const PAPER_DEFAULTS = {
  /** Beams per query item in constrained decoding. */
  beams: 50,
  /** The RRF constant k of every fusion. */
  rrfK: 60,
  /** Results kept per fused list (the paper evaluates up to R@50). */
  topN: 50,
  /** Hops of the dense-graph walk. */
  walkHops: 2,
} as const;

/** The facet extractors GRAFT_EXTRACTOR (and `graft extract --provider`) may name. */
export const EXTRACTORS = ["offline", "llm"] as const;

/** A value that never prints itself (String, JSON, util.inspect); `reveal()` where it is used. */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return "[redacted]";
  }
  toJSON(): string {
    return "[redacted]";
  }
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return "Secret([redacted])";
  }
}

/** One or more settings with bad values; the message names each variable. */
export class ConfigError extends Error {
  constructor(readonly issues: readonly { variable: string; message: string }[]) {
    super(issues.length === 1 ? issues[0].message : `invalid settings:\n  ${issues.map((i) => i.message).join("\n  ")}`);
    this.name = "ConfigError";
  }
}

// ── value types ──────────────────────────────────────────────────────────────────────────

const wholeNumber = (min: number, max?: number) => {
  const message = max === undefined ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^[+-]?\d+$/, { message })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { message })
        .max(max ?? Number.MAX_SAFE_INTEGER, { message }),
    );
};

const positiveNumber = () => {
  const message = "expected a positive number";
  return z
    .string()
    .regex(/^(\d+\.?\d*|\.\d+)$/, { message })
    .transform(Number)
    .pipe(z.number().gt(0, { message }));
};

const text = () => z.string();

/** Set to anything but "0", "false", "no" or "off" (blank counts as unset). */
const flag = () => z.string().transform((s) => !["0", "false", "no", "off"].includes(s.toLowerCase()));

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `expected ${values.length === 2 ? values.join(" or ") : `one of ${values.join(", ")}`}` });

const httpUrl = () =>
  z.string().refine((s) => /^https?:\/\/[^/]/i.test(s) && URL.canParse(s), {
    message: "expected an http(s) URL such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1",
  });

/** `<per minute>[:<burst>]` or `off`; parsed by lib/db/rate-limits.ts. */
const rateSpec = () => z.string().regex(/^(off|0|\d+(\.\d+)?(:\d+)?)$/, { message: 'expected "<per minute>" or "<per minute>:<burst>" (or "off")' });

const list = (separator: string) =>
  z.string().transform((s) =>
    s
      .split(separator)
      .map((p) => p.trim())
      .filter(Boolean),
  );

/** GRAFT_TRUSTED_PROXIES: IPv4/IPv6 addresses, CIDRs or `loopback` (checked precisely by lib/security/client.ts). */
const addressList = () =>
  list(",").refine((items) => items.every((a) => a === "loopback" || /^(?=[^/]*[.:])[0-9a-f:.]+(\/\d{1,3})?$/i.test(a)), {
    // A bare number is the old meaning of this setting (a count of proxies): the addresses are needed now.
    message: 'expected the proxies\' addresses or CIDRs, comma-separated (e.g. "10.0.0.0/8, ::1" or "loopback"), not a count',
  });

const secret = () => z.string().transform((s) => new Secret(s));

/** path.delimiter, without importing node:path (this module stays free of Node built-ins). */
const PATH_DELIMITER = typeof process !== "undefined" && process.platform === "win32" ? ";" : ":";

// ── the settings ─────────────────────────────────────────────────────────────────────────

interface Setting<T> {
  /** Parses the trimmed, non-blank value. */
  schema: z.ZodType<T, string>;
  /** The value when unset or blank; undefined: the setting is optional (its reader derives a default). */
  default?: T;
  /** The default as the README shows it, when it is not the plain value (a derived path, a rule). */
  shown?: string;
  doc: string;
  /** Never echoed in an error message. */
  secret?: boolean;
  /** Keep surrounding white space (a password). */
  raw?: boolean;
}

// Checks an entry's shape and keeps its value type, and whether it has a default, for Config below.
function s<T>(setting: Setting<T> & { default: T }): Setting<T> & { default: T };
function s<T>(setting: Setting<T>): Setting<T>;
function s<T>(setting: Setting<T>): Setting<T> {
  return setting;
}

export const SETTINGS = {
  // store and files
  DATABASE_URL: s({
    schema: text(),
    shown: "`file:$GRAFT_DATA_ROOT/graft.db`",
    secret: true,
    doc: "`file:<path>` for the embedded SQLite store, `postgresql://user:pass@host:port/db` for PostgreSQL",
  }),
  GRAFT_DB_BUSY_MS: s({
    schema: wholeNumber(0),
    default: 5000,
    doc: "how long a SQLite statement waits for another process's lock; then the request is answered 503 `store_unavailable` with `Retry-After`",
  }),
  GRAFT_DATA_ROOT: s({
    schema: text(),
    default: ".graft",
    doc: "where the SQLite file, builds, vector caches and models live (relative paths: from the repository root)",
  }),
  GRAFT_SHARED_DATA: s({ schema: text(), default: "../shared/data", doc: "the read-only data directory" }),
  GRAFT_DEMO_CORPUS: s({ schema: text(), shown: "`$GRAFT_SHARED_DATA/acl-citegraph`", doc: "what `graft import` reads when given no path" }),
  GRAFT_IMPORT_ROOTS: s({
    schema: list(PATH_DELIMITER),
    default: [] as string[],
    shown: "unset",
    doc: "more directories (`:`-separated, `;` on Windows) an import job may read, besides the shared data and the data root",
  }),
  GRAFT_EVAL_REPORT: s({ schema: text(), default: "reports/eval-latest.json", doc: "the report the Evaluation page shows" }),
  GRAFT_GENRET_MODELS: s({
    schema: text(),
    shown: "`$GRAFT_DATA_ROOT/<corpus>/genret-models`",
    doc: "trained models of the evaluation's generative rows, one folder per variant",
  }),
  // models and retrieval
  GRAFT_EMBEDDER: s({
    schema: text(),
    default: "use-lite",
    doc: "item embedder: `use-lite` (offline, shipped weights), `minilm[:hub id or local folder]` (the paper's all-MiniLM-L12-v2 through transformers.js) or `lsa:<folder>`; unset, the demo corpus's graph build embeds with its text encoder (`lsa:models/acl-contrastive`)",
  }),
  GRAFT_TEXT_ENCODER: s({
    schema: text(),
    default: "models/acl-contrastive",
    doc: "the default retriever's whole-paper text encoder: a bag-of-words model folder (`graft fit-encoder`; relative paths from the repository root), or `off`",
  }),
  GRAFT_HF_MODELS_DIR: s({ schema: text(), shown: "`$GRAFT_DATA_ROOT/models`", doc: "where hub models are looked up and cached" }),
  GRAFT_HF_OFFLINE: s({ schema: flag(), default: false, shown: "unset", doc: "set: never download a hub model" }),
  GRAFT_BEAMS: s({ schema: wholeNumber(1), default: PAPER_DEFAULTS.beams, doc: "beams per query item of the generative retriever" }),
  GRAFT_ANN_MIN_PAPERS: s({
    schema: wholeNumber(0),
    default: 20_000,
    doc: "a pasted paper is inserted through an approximate nearest-neighbour index (HNSW, hnswlib-node; written by the graph stage, or built at the first pasted paper for a build without its files) when the corpus has more papers than this, else by exact max-sim over every item; `0`: always",
  }),
  GRAFT_EDGE_ROWS_MAX_PAPERS: s({
    schema: wholeNumber(0),
    default: 20_000,
    doc: "a graph build of a corpus with more papers than this stores no `Edge` rows (its manifest records `edgeRows: false`); paper pages read the build's `graph.csr` either way, and the rows cost ≈ 146 s and ≈ 650 MiB of SQLite at 64k papers",
  }),
  GRAFT_DECODE_THREADS: s({ schema: wholeNumber(1), default: 1, doc: "onnxruntime threads of the generative retriever's decoder" }),
  GRAFT_PYTHON: s({ schema: text(), default: "/usr/bin/python3", doc: "Python with PyTorch for the trainer (`workers/trainer`)" }),
  GRAFT_CODE_VERSION: s({ schema: text(), shown: "unset", doc: "recorded in graph build manifests (e.g. the git commit)" }),
  // facet extraction
  GRAFT_EXTRACTOR: s({
    schema: oneOf(EXTRACTORS),
    default: "offline" as (typeof EXTRACTORS)[number],
    doc: "facet extractor for papers users bring: `offline` (embedded) or `llm`",
  }),
  GRAFT_LLM_BASE_URL: s({
    schema: httpUrl(),
    default: "https://api.openai.com/v1",
    doc: "OpenAI-compatible chat-completions server for LLM facet extraction (OpenAI, Ollama, vLLM, llama.cpp, LM Studio)",
  }),
  GRAFT_LLM_MODEL: s({ schema: text(), shown: "unset", doc: "its chat model (required for `llm`), e.g. `gpt-5-mini` or `llama3.1:8b`" }),
  GRAFT_LLM_API_KEY: s({ schema: secret(), shown: "unset", secret: true, doc: "its API key (local servers usually need none)" }),
  OPENAI_API_KEY: s({ schema: secret(), shown: "unset", secret: true, doc: "the API key when `GRAFT_LLM_API_KEY` is unset" }),
  GRAFT_LLM_MAX_INPUT_TOKENS: s({
    schema: wholeNumber(32),
    default: 100_000,
    doc: "token budget of the paper text in the prompt (the paper: head-truncated at 100,000)",
  }),
  GRAFT_LLM_CONCURRENCY: s({ schema: wholeNumber(1), default: 4, doc: "LLM requests in flight at once" }),
  GRAFT_LLM_TIMEOUT_MS: s({ schema: wholeNumber(1), default: 120_000, doc: "limit of one LLM request, response included" }),
  GRAFT_LLM_MAX_RETRIES: s({ schema: wholeNumber(0), default: 5, doc: "retries of a failed LLM request" }),
  GRAFT_LLM_REASONING_EFFORT: s({
    schema: z.string().regex(/^[a-z]+$/, { message: "expected a single lower-case word such as minimal, low, medium or high" }),
    shown: "unset",
    doc: "sent as `reasoning_effort` when set (the paper: `minimal` with gpt-5-mini)",
  }),
  // limits
  GRAFT_MAX_UPLOAD_MB: s({ schema: positiveNumber(), default: 20, doc: "largest uploaded or pasted paper, in MB" }),
  GRAFT_MAX_PDF_PAGES: s({ schema: wholeNumber(1), default: 100, doc: "most pages of an uploaded PDF" }),
  GRAFT_MAX_JSON_KB: s({ schema: wholeNumber(1), default: 1024, doc: "largest JSON request body, in KB" }),
  GRAFT_MAX_UNPACKED_MB: s({
    schema: positiveNumber(),
    default: 64,
    doc: "most a compressed input (a gzipped upload or import file, a PDF's compressed streams) may expand to, in MB; more is refused while unpacking",
  }),
  // web server
  GRAFT_RATE_QUERY: s({
    schema: rateSpec(),
    default: "60:30",
    doc: "queries per minute and burst per client (`<per min>[:<burst>]` or `off`; counted in the store, shared by all instances)",
  }),
  GRAFT_RATE_UPLOAD: s({
    schema: rateSpec(),
    default: "10:5",
    doc: "uploads per minute and burst per client (PDF parsing and extraction cost far more than a query)",
  }),
  GRAFT_RATE_AUTH: s({ schema: rateSpec(), default: "10:30", doc: "sign-in attempts per minute and burst per client address" }),
  GRAFT_RATE_ACCOUNT: s({
    schema: rateSpec(),
    default: "1:10",
    doc: "sign-in attempts per minute and burst per account, from any address (a lockout; a successful sign-in clears it)",
  }),
  GRAFT_RATE_ADMIN: s({ schema: rateSpec(), default: "60:20", doc: "admin requests per minute and burst per client" }),
  GRAFT_MAX_CONCURRENT_QUERIES: s({
    schema: wholeNumber(0),
    default: 8,
    doc: "queries one server process works on at once; one more gets 503 with `Retry-After` at once (`0`: no limit)",
  }),
  GRAFT_MAX_QUEUE_MS: s({
    schema: wholeNumber(0),
    default: 100,
    doc: "the production server's front process (`scripts/server.mjs`) answers a query 503 `busy` with `Retry-After` at once, without passing it to Next, when the queries already in hand would keep it waiting longer than this (their count × the recent median time per query) or the oldest has been in hand longer than this; a connection that asks again within `Retry-After` gets its refusal after 0.4 × this (`0`: never)",
  }),
  GRAFT_RATE_LIMITS: s({ schema: oneOf(["on", "off"]), default: "on" as "on" | "off", doc: "`off` lifts every rate limit (benchmarks)" }),
  GRAFT_TRUSTED_PROXIES: s({
    schema: addressList(),
    default: [] as string[],
    shown: "unset",
    doc: "reverse proxies whose `X-Forwarded-For` is believed: addresses or CIDRs, comma-separated, or `loopback`; unset: the connecting address is the client",
  }),
  GRAFT_ALLOWED_ORIGINS: s({
    schema: list(","),
    default: [] as string[],
    shown: "unset",
    doc: "extra origins (comma-separated) allowed for state-changing requests (CSRF check)",
  }),
  GRAFT_BCRYPT_ROUNDS: s({ schema: wholeNumber(4, 15), default: 12, doc: "password hashing cost (~0.4 s per hash here)" }),
  GRAFT_NEXT_DIST: s({ schema: text(), default: ".next", doc: "Next's build folder (`next build`, `next start`, `bench:load`)" }),
  // jobs and workers
  GRAFT_JOB_LEASE_S: s({
    schema: wholeNumber(1),
    default: 120,
    doc: "a running job whose worker has not renewed its lease for this long goes back to the queue",
  }),
  GRAFT_JOB_MAX_ATTEMPTS: s({ schema: wholeNumber(1), default: 3, doc: "claims after which a job whose worker keeps dying fails instead of looping" }),
  GRAFT_WORKER_POLL_MS: s({ schema: wholeNumber(10), default: 1000, doc: "how often an idle worker looks for work" }),
  GRAFT_WORKER_GRACE_S: s({
    schema: wholeNumber(0),
    default: 20,
    doc: "after SIGTERM, how long the running stage gets to reach a safe point before its job is handed back",
  }),
  // command line
  GRAFT_PROGRESS: s({
    schema: oneOf(["bar", "lines", "off"]),
    shown: "bar on a terminal, else lines",
    doc: "how CLI stages show progress: `bar`, `lines` or `off`",
  }),
  GRAFT_PROGRESS_INTERVAL_S: s({ schema: positiveNumber(), default: 10, doc: "interval of plain progress lines, in seconds" }),
  GRAFT_USER_PASSWORD: s({
    schema: secret(),
    shown: "unset",
    secret: true,
    raw: true,
    doc: "the password of `graft user add`/`passwd` without `--password-stdin` (else one is generated)",
  }),
  GRAFT_DEBUG: s({ schema: flag(), default: false, shown: "unset", doc: "set: the CLI prints stack traces, `bench:load` the server's stderr" }),
  CI: s({ schema: flag(), default: false, shown: "unset", doc: "set (by CI systems): progress as plain lines, never a bar; Playwright retries once" }),
  // development and tests
  GRAFT_TEST_PG_URL: s({
    schema: text(),
    shown: "unset",
    secret: true,
    doc: "a PostgreSQL server the integration tests create their databases on (`npm test` starts one)",
  }),
  GRAFT_TEST_CONCURRENCY: s({
    schema: wholeNumber(1, 256),
    shown: "cores",
    doc: "test files `npm test` runs at once (default: the number of cores, at least 2; read by scripts/test.sh)",
  }),
  GRAFT_TEST_README_BASE: s({
    schema: text(),
    shown: "unset",
    doc: "a store the README's first recipes made, with the commands that ran (`ran.txt`): the README examples' test starts from it (`npm test` hands over its e2e set-up's)",
  }),
  GRAFT_FAILPOINT: s({ schema: text(), shown: "unset", doc: "a worker that reaches this named point pauses there (the kill-and-resume test)" }),
  GRAFT_PRISMA_SCHEMA: s({ schema: text(), default: "prisma/schema.prisma", doc: "the Prisma schema the Prisma CLI reads (`prisma.config.ts`)" }),
  GRAFT_PRISMA_MIGRATIONS: s({ schema: text(), default: "prisma/migrations", doc: "the migrations folder the Prisma CLI reads" }),
  GRAFT_E2E_PORT: s({ schema: wholeNumber(1, 65535), default: 3100, doc: "port of the server the e2e tests start" }),
  GRAFT_E2E_REUSE_SERVER: s({
    schema: flag(),
    default: false,
    shown: "unset",
    doc: "set: the e2e tests use a server already on `GRAFT_E2E_PORT` (else they start their own and fail if the port is taken)",
  }),
  GRAFT_E2E_ARTIFACTS: s({ schema: text(), default: "e2e/.artifacts", doc: "where Playwright writes traces and failure screenshots" }),
  GRAFT_UPDATE_SCREENSHOTS: s({
    schema: flag(),
    default: false,
    shown: "unset",
    doc: "set: the e2e tests rewrite the committed `e2e/screenshots/` (else they write the ignored `e2e/.screenshots/`)",
  }),
  CHROMIUM_PATH: s({ schema: text(), default: "/usr/bin/chromium", doc: "browser for the e2e tests" }),
} as const;

export type SettingName = keyof typeof SETTINGS;

type ValueOf<S> = S extends Setting<infer T> ? T : never;
type HasDefault<S> = S extends { default: unknown } ? true : false;

/** The parsed settings, by variable name; optional ones are undefined when unset. */
export type Config = {
  readonly [K in SettingName]: HasDefault<(typeof SETTINGS)[K]> extends true ? ValueOf<(typeof SETTINGS)[K]> : ValueOf<(typeof SETTINGS)[K]> | undefined;
};

const NAMES = Object.keys(SETTINGS) as SettingName[];

/** The value a setting has when unset (undefined for the optional ones). */
export function defaultOf<K extends SettingName>(name: K): Config[K] {
  return (SETTINGS[name] as Setting<unknown>).default as Config[K];
}

// ── parsing ──────────────────────────────────────────────────────────────────────────────

/** Parses every setting from `env`; throws a ConfigError naming each bad variable. */
export function parseConfig(env: Env): Config {
  const out: Record<string, unknown> = {};
  const issues: { variable: string; message: string }[] = [];
  for (const name of NAMES) {
    const setting = SETTINGS[name] as Setting<unknown>;
    const given = env[name];
    const value = given === undefined || setting.raw ? given : given.trim();
    if (value === undefined || value.trim() === "") {
      out[name] = setting.default;
      continue;
    }
    const r = setting.schema.safeParse(value);
    if (r.success) out[name] = r.data;
    else {
      const why = r.error.issues[0]?.message ?? "invalid value";
      issues.push({ variable: name, message: setting.secret ? `${name}: ${why}` : `${name}=${JSON.stringify(value)}: ${why}` });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return Object.freeze(out) as Config;
}

let cached: { key: string; config: Config } | null = null;

function fingerprint(env: Env): string {
  let key = "";
  for (const name of NAMES) {
    const v = env[name];
    key += v === undefined ? "\u0000\u0001" : `${v}\u0001`;
  }
  return key;
}

/** The settings of this process (parsed on first use; again only after one of them changed). */
export function config(): Config {
  const key = fingerprint(process.env);
  if (cached?.key === key) return cached.config;
  const parsed = parseConfig(process.env);
  cached = { key, config: parsed };
  return parsed;
}

/** `config()`, or the settings of `env` when a caller (a test) passes its own environment. */
export function configFrom(env?: Env): Config {
  return env === undefined || env === process.env ? config() : parseConfig(env);
}

/** Whether the environment gives the setting a value (not blank), as opposed to its default. */
export function isSet(name: SettingName, env: Env = process.env): boolean {
  return (env[name] ?? "").trim() !== "";
}

// ── documentation ────────────────────────────────────────────────────────────────────────

function shownDefault(setting: Setting<unknown>): string {
  if (setting.shown !== undefined) return setting.shown;
  if (setting.default === undefined) return "unset";
  return `\`${String(setting.default)}\``;
}

/** The README's configuration table: one row per setting, in the order above. */
export function configTable(): string {
  const rows = NAMES.map((name) => {
    const setting = SETTINGS[name] as Setting<unknown>;
    return `| \`${name}\` | ${shownDefault(setting)} | ${setting.doc} |`;
  });
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}
