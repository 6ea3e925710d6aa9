import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { ToolExecutor } from "../execution/tool-executor.js";
import type { ToolExecutorOptions } from "../execution/tool-executor.js";
import { ExecutionLog } from "../log/execution-log.js";
import type { ExecutionLogOptions } from "../log/execution-log.js";
import { registryToolEntrySchema } from "../registry/tool-entry-schema.js";
import { ToolRegistry } from "../registry/tool-registry.js";

export interface ToolsFixture {
  readonly dir: string;
  /** extensions_config.json. */
  readonly file: string;
  readonly scriptsDir: string;
  readonly store: ExtensionsStore;
  readonly registry: ToolRegistry;
  readonly log: ExecutionLog;
  readonly executor: ToolExecutor;
  /** The scripts folder's file names, sorted. */
  scriptFiles(): string[];
  cleanup(): void;
}

export interface ToolsFixtureOptions {
  /** The `tools` section the file starts with. @default {} */
  readonly tools?: Record<string, unknown>;
  /** Scripts to place in the scripts folder first, by file name. */
  readonly scripts?: Record<string, string>;
  readonly executor?: Partial<ToolExecutorOptions>;
  readonly log?: Partial<ExecutionLogOptions>;
}

/** A registry, executor and log over a temporary folder, as the gateway and the agent wire them. */
export function createToolsFixture(options: ToolsFixtureOptions = {}): ToolsFixture {
  const { dir, cleanup } = makeTempDir("tt-tools-");
  const file = path.join(dir, "extensions_config.json");
  const scriptsDir = path.join(dir, "tools");
  fs.mkdirSync(scriptsDir);
  for (const [name, source] of Object.entries(options.scripts ?? {})) fs.writeFileSync(path.join(scriptsDir, name), source);
  fs.writeFileSync(file, `${JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: options.tools ?? {} }, null, 2)}\n`);
  const store = new ExtensionsStore(file, { schemas: { tools: registryToolEntrySchema } });
  const registry = new ToolRegistry({ store, scriptsDir, defaultTimeoutSeconds: 30 });
  const log = new ExecutionLog({ dir: path.join(dir, "logs"), ...options.log });
  fs.mkdirSync(path.join(dir, "work"));
  const executor = new ToolExecutor({ registry, log, searchPath: process.env.PATH ?? "", workRoot: path.join(dir, "work"), ...options.executor });
  return { dir, file, scriptsDir, store, registry, log, executor, scriptFiles: () => fs.readdirSync(scriptsDir).sort(), cleanup };
}

/** A Python tool that greets `name` (the hello_world of the specification). */
export const helloWorldPython = [
  "import json, sys",
  "args = json.load(sys.stdin)",
  'print(json.dumps({"greeting": "Hello, " + args["name"] + "!"}))',
  "",
].join("\n");

/** hello_world's definition for the API and the registry (script inline). */
export function helloWorldDefinition(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "hello_world",
    description: "Say hello: returns a friendly greeting for the given name.",
    input_schema: { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"], additionalProperties: false },
    output_schema: { type: "object", properties: { greeting: { type: "string" } }, required: ["greeting"] },
    runtime: "python",
    script: helloWorldPython,
    timeout: 20,
    ...overrides,
  };
}
