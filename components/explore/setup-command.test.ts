import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setupCommands } from "./setup-command";

// Issue 28, finding 8: the explorer's copyable command names the corpus and, without a better
// hint from the server, the extraction step before the build.

describe("the explorer's set-up command", () => {
  test("the command the server's message names is shown as is", () => {
    const message = 'corpus "acl" has no graph build yet: run `npm run graft -- build --stage graph --corpus acl`';
    assert.equal(setupCommands(message, "acl"), "npm run graft -- build --stage graph --corpus acl");
  });
  test("otherwise extraction then the graph build, both for the corpus", () => {
    assert.equal(setupCommands("not ready", "mine"), "npm run graft -- extract --corpus mine\nnpm run graft -- build --stage graph --corpus mine");
  });
});
