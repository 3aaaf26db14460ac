import { defineConfig, devices } from "@playwright/test";
import { config } from "./lib/config";
import { E2E_BCRYPT_ROUNDS } from "./e2e/accounts";

// End-to-end tests against a production build (`npx next build` first) with Debian's Chromium:
// `npx playwright install` cannot download browsers offline. Point DATABASE_URL at a database
// that holds the demo corpus (acl-citegraph).

const settings = config();
const PORT = settings.GRAFT_E2E_PORT;
const BASE_URL = `http://127.0.0.1:${PORT}`;
const CI = settings.CI;

export default defineConfig({
  testDir: "e2e",
  outputDir: settings.GRAFT_E2E_ARTIFACTS,
  // One worker: the suite shares one server and one SQLite file, and CI machines have 2 cores.
  workers: 1,
  fullyParallel: false,
  forbidOnly: CI,
  retries: CI ? 1 : 0,
  // A whole flow's budget, not a wait (each step waits for its state, up to expect's timeout):
  // the longest flows make a dozen server round trips, 12-19 s in npm test at load 6-8 and
  // 21-36 s at load 13 on 2 cores, where 30 s timed one out (1 of 230 runs, --repeat-each 5).
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: CI ? [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]] : "list",
  use: {
    baseURL: BASE_URL,
    // A failed test keeps its trace (actions, DOM snapshots, network) but not the trace's
    // screencast: filming every test, most of which pass, cost about a quarter of the e2e CPU
    // on 2 cores. The failure screenshot below still shows the last frame.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 900 },
        launchOptions: {
          executablePath: settings.CHROMIUM_PATH,
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
          ],
        },
      },
    },
  ],
  webServer: {
    command: `npx next start -H 127.0.0.1 -p ${PORT}`,
    // The static home page: readiness must not depend on the database, so a missing corpus
    // fails an assertion with a message instead of timing out here.
    url: `${BASE_URL}/`,
    // Only on request: an app already on the port (a dev server, an older build) would otherwise be
    // tested silently in place of this checkout's build.
    reuseExistingServer: settings.GRAFT_E2E_REUSE_SERVER,
    timeout: 60_000,
    stdout: "pipe",
    stderr: "pipe",
    // The accounts the specs make use bcrypt's minimum cost, and so do the server's own hashes
    // (an invited annotator's password, the unknown-account timing hash): e2e/accounts.ts.
    env: { NEXT_TELEMETRY_DISABLED: "1", GRAFT_BCRYPT_ROUNDS: String(E2E_BCRYPT_ROUNDS) },
  },
});
