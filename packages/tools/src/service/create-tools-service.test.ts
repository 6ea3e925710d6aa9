import fs from "node:fs";
import path from "node:path";
import { isThinktankError, loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { helloWorldDefinition } from "../test-support/tools-fixture.js";
import { createToolsService } from "./create-tools-service.js";

let temp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => temp?.cleanup());

function setUp(tools: Record<string, unknown> = {}, yaml = "tools:\n  scripts_dir: my-tools\n  default_timeout_seconds: 7\n") {
  temp = makeTempDir("tt-tools-service-");
  writeTree(temp.dir, { "config.yaml": yaml, "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools }) });
  return loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
}

describe("createToolsService", () => {
  it("wires registry, executor, log and web_search from config", async () => {
    const config = setUp();
    const service = createToolsService(config);
    await service.check();
    const tool = await service.registry.register({ definition: helloWorldDefinition({ timeout: undefined }) });
    expect(tool.timeout).toBe(7);
    expect(fs.existsSync(path.join(temp!.dir, "my-tools", tool.script))).toBe(true);
    expect(await service.executor.invoke("hello_world", { name: "config" })).toEqual({ status: "success", data: { greeting: "Hello, config!" } });
    expect(fs.readdirSync(path.join(config.log.dir, "tools"))).toHaveLength(1);
    expect(service.webSearch.available).toBe(false);
  });

  it("refuses to start on a malformed registry, naming the file and the bad fields", async () => {
    const config = setUp({ hello: { description: "x", input_schema: { type: "object" }, runtime: "perl", script: "h.pl", timout: 3 } });
    const error = await createToolsService(config)
      .check()
      .catch((caught: unknown) => caught);
    expect(isThinktankError(error) && error.code).toBe("CONFIG_INVALID");
    expect((error as Error).message).toContain(config.extensions_config);
    expect((error as Error).message).toMatch(/tools\.hello\.runtime: must be one of "python", "node", "shell"/);
    expect((error as Error).message).toMatch(/tools\.hello\.timout: is not a known field/);
  });
});
