// execute_code and config.sandbox.network.allow: a program reaches the configured hosts through the
// sandbox's egress proxy (whichever isolating backend auto picks), and nothing else.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeApiMountPath } from "./code-mode.js";
import { codeModeToolSpecs } from "./surface/code-mode-tool-specs.js";
import { codeModeFixture, type CodeModeFixture } from "./test-support/code-mode-fixture.js";

describe("execute_code with sandbox.network.allow", () => {
  let server: http.Server;
  let port: number;
  let fixture: CodeModeFixture;

  beforeAll(async () => {
    server = http.createServer((request, response) => response.end(`reached ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    const allow = [`127.0.0.1:${port}`];
    fixture = codeModeFixture({ servers: () => ({}), sandbox: { warm_pool_size: 1, network: { allow, allowed_private: [`127.0.0.1:${port}`] } }, codeMode: { network: allow } });
  });
  afterAll(async () => {
    await fixture.cleanup();
    await new Promise((resolve) => server.close(resolve));
  });

  it("reaches a configured host with fetch, and gets the proxy's 403 for another", async () => {
    const code = `
      const allowed = await fetch("http://127.0.0.1:${port}/from-code");
      console.log(allowed.status, await allowed.text());
      const refused = await fetch("http://127.0.0.1:${port + 1 === 65536 ? port - 1 : port + 1}/other");
      console.log(refused.status);`;
    const result = await fixture.codeMode.executeCode({ code }, { threadId: "network" });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout.trim().split("\n")).toEqual(["200 reached /from-code", "403"]);
  });

  it("prewarms the kind of worker its runs need (one that can reach the proxy)", async () => {
    await fixture.codeMode.prewarm({ threadId: "prewarmed" });
    const result = await fixture.executor.run({
      language: "javascript",
      source: "console.log(1)",
      workspaceDir: fixture.executor.workspaceFor("prewarmed"),
      mounts: [{ hostPath: fixture.config.code_execution.code_api_dir, sandboxPath: codeApiMountPath }],
      network: [`127.0.0.1:${port}`],
    });
    expect(result.warm).toBe(true);
  });

  it("says which hosts in execute_code's description, and nothing about a network otherwise", () => {
    const settings = fixture.codeMode.toolSettings();
    expect(codeModeToolSpecs(settings).executeCode.description).toContain(`No network except tools and these hosts, through the sandbox's proxy (fetch and HTTPS_PROXY-aware clients use it): 127.0.0.1:${port};`);
    expect(codeModeToolSpecs({ ...settings, network: [] }).executeCode.description).toContain("No network except tools; Node built-ins");
  });
});
