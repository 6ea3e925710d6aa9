import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { createLogger, loadConfig } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../src/build-app.js";
import { createGatewayDeps } from "../src/gateway-deps.js";
import type { GatewayDeps } from "../src/gateway-deps.js";

export interface TestGateway {
  readonly app: FastifyInstance;
  readonly config: Config;
  readonly deps: GatewayDeps;
  readonly dir: string;
  /** extensions_config.json in the temporary folder. */
  readonly file: string;
  /** Everything the gateway logged so far (JSON lines). */
  logs(): string;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  readonly apiKey?: string;
  readonly extensions?: unknown;
  readonly configYaml?: string;
  /** The captured logger's level. @default "info" */
  readonly logLevel?: "info" | "debug";
  readonly deps?: Partial<GatewayDeps>;
  /** Called after buildApp, before ready: add test-only routes here. */
  readonly extend?: (app: FastifyInstance) => void;
}

/** A gateway app over a temporary folder (config.yaml, extensions_config.json), logs captured. */
export async function createTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { dir, cleanup } = makeTempDir("tt-gateway-");
  const file = path.join(dir, "extensions_config.json");
  fs.writeFileSync(file, `${JSON.stringify(options.extensions ?? { mcpServers: {}, skills: {}, plugins: {}, tools: {} }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, "config.yaml"), options.configYaml ?? "log:\n  level: info\n");
  const config = loadConfig({ cwd: dir, env: options.apiKey ? { THINKTANK_API_KEY: options.apiKey } : {} });
  let logText = "";
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logText += String(chunk);
      done();
    },
  });
  const deps = createGatewayDeps(config, { logger: createLogger({ level: options.logLevel ?? "info", name: "gateway", destination }), ...options.deps });
  const app = buildApp(config, deps);
  options.extend?.(app);
  await app.ready();
  return {
    app,
    config,
    deps,
    dir,
    file,
    logs: () => logText,
    close: async () => {
      await app.close();
      cleanup();
    },
  };
}

/** A concrete URL for a route pattern (`:name` → `x`, `*` → `x`). */
export function sampleUrl(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]+/g, "x").replace(/\*$/, "x");
}
