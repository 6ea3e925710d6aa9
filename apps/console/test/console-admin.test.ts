// The administrator's pages in a real Chromium against the real gateway and agent server, as the
// key-less local administrator `npm start` runs (and the users it makes): skills, plugins and
// marketplaces (the corpus's skills copied in), then the operations pages (two MCP servers, one
// behind the OAuth test server). One backend and one browser for the file (starting them is most of
// a suite's cost on a loaded machine). The suites run in this order, each setting up what it needs
// when it starts (suites/*.ts say what they rely on): the catalog first (no plugin or marketplace
// yet), then the operations pages.
import { startOAuthTestServer, type OAuthTestServer } from "@thinktank/mcp/testing";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe } from "vitest";
import { mergeBackendParts, startSharedConsole, type SharedConsole } from "./support/console-suite.js";
import { catalogBackend, catalogSuite } from "./suites/catalog-suite.js";
import { operationsBackend, operationsSuite } from "./suites/operations-suite.js";

describe("the administrator's pages, one backend", { ...needs("browser") }, () => {
  let oauth: OAuthTestServer | undefined;
  let started: SharedConsole | undefined;
  const shared = (): SharedConsole => {
    if (!started) throw new Error("the shared backend did not start (see the beforeAll's error)");
    return started;
  };

  beforeAll(async () => {
    oauth = await startOAuthTestServer();
    started = await startSharedConsole(mergeBackendParts("console admin", [catalogBackend, operationsBackend(oauth)], "Hello from the script."));
  }, 180_000);
  afterAll(async () => {
    await started?.browser.close();
    await started?.backend.close();
    await oauth?.close();
  });

  catalogSuite(shared);
  operationsSuite(shared);
});
