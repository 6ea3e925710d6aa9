// The console for people in a real Chromium against the real gateway and agent server, as the
// key-less local administrator `npm start` runs (and the users it makes): the chat, every page
// walked with axe-core and the keyboard, hostile content shown as text. One
// backend and one browser for the file (starting them is most of a suite's cost on a loaded machine);
// each test opens its own browser context. The suites run in this order and each sets up what it
// needs when it starts (suites/*.ts say what they rely on): the chat first (no thread yet), then the
// accessibility walk (over the chat's threads too), hostile content. No MCP server is configured, as
// before these suites shared a backend (with the operations pages' two, the chat's turn shows no
// sub-agent tokens: an open console issue); those pages run in console-admin.test.ts.
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe } from "vitest";
import { mergeBackendParts, startSharedConsole, type SharedConsole } from "./support/console-suite.js";
import { accessibilityBackend, accessibilitySuite } from "./suites/accessibility-suite.js";
import { chatBackend, chatSuite } from "./suites/chat-suite.js";
import { hostileContentBackend, hostileContentSuite } from "./suites/hostile-content-suite.js";

describe("the console as the local administrator, one backend", { ...needs("browser") }, () => {
  let started: SharedConsole | undefined;
  const shared = (): SharedConsole => {
    if (!started) throw new Error("the shared backend did not start (see the beforeAll's error)");
    return started;
  };

  beforeAll(async () => {
    // Hostile content's rules come first: its `ls` result has a rule of its own.
    const options = mergeBackendParts("console pages", [hostileContentBackend, chatBackend, accessibilityBackend], "Hello from the script.");
    started = await startSharedConsole(options);
  }, 180_000);
  afterAll(async () => {
    await started?.browser.close();
    await started?.backend.close();
  });

  chatSuite(shared);
  accessibilitySuite(shared);
  hostileContentSuite(shared);
});
