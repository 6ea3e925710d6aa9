import path from "node:path";
import { ExtensionsStore, hostConfinementFor, serviceSecretVariables } from "@thinktank/core";
import type { Config, HiddenPathsConfig, HostConfinement } from "@thinktank/core";
import { createWebSearch } from "../builtins/web-search/create-web-search.js";
import type { WebSearch } from "../builtins/web-search/web-search.js";
import type { FetchFunction } from "../builtins/web-search/web-search-types.js";
import { RegisteredToolsInvoker } from "../codemode/registered-tools-invoker.js";
import { defaultScriptPath } from "../execution/script-environment.js";
import type { SandboxedScriptRunner } from "../execution/sandboxed-script-runner.js";
import { ToolExecutor } from "../execution/tool-executor.js";
import { ExecutionLog } from "../log/execution-log.js";
import { SchemaCompiler } from "../registry/schema-compiler.js";
import { registryToolEntrySchema } from "../registry/tool-entry-schema.js";
import { ToolRegistry } from "../registry/tool-registry.js";
import type { RegistryView } from "../registry/tool-registry.js";

/** The parts of the configuration the tools library reads. */
export type ToolsConfig = Pick<Config, "extensions_config" | "tools" | "web_search" | "log" | "env" | "models" | "search"> & HiddenPathsConfig;

export interface ToolsServiceOptions {
  /** extensions_config.json (share the gateway's, so writes use one queue). @default a new ExtensionsStore with the registry's entry schema */
  readonly store?: ExtensionsStore;
  /** Told when the execution log cannot be written. @default ignore */
  readonly onLogError?: (error: unknown) => void;
  /** For web_search. @default the global fetch */
  readonly fetch?: FetchFunction;
  /** Clock of the execution log (rotation, retention) and of registry timestamps. @default () => new Date() */
  readonly clock?: () => Date;
  /** How trusted script tools are confined on the host (share the service's). @default hostConfinementFor(config) */
  readonly hostConfinement?: HostConfinement;
  /** Runs untrusted script tools (a skill's, unless an administrator trusted it) in the sandbox. @default none: they answer TOOL_UNAVAILABLE */
  readonly sandboxRunner?: SandboxedScriptRunner;
}

/** Everything the tools library offers, wired from config: what the gateway, the agent and the CLI use. */
export interface ToolsService {
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  /** Every call, one JSON line, in `<log.dir>/tools/` (daily files, kept log_retention_days). */
  readonly log: ExecutionLog;
  readonly webSearch: WebSearch;
  /** Registered tools as a code-mode "server" named `tools`. */
  readonly invoker: RegisteredToolsInvoker;
  /** Start-up check: CONFIG_INVALID (with every bad entry's path) when the registry is malformed. */
  check(): Promise<RegistryView>;
}

/** The folder of the execution log under config.log.dir. */
export function executionLogDir(config: Pick<Config, "log">): string {
  return path.join(config.log.dir, "tools");
}

export function createToolsService(config: ToolsConfig, options: ToolsServiceOptions = {}): ToolsService {
  const store = options.store ?? new ExtensionsStore(config.extensions_config, { schemas: { tools: registryToolEntrySchema } });
  const compiler = new SchemaCompiler();
  const registry = new ToolRegistry({
    store,
    scriptsDir: config.tools.scripts_dir,
    defaultTimeoutSeconds: config.tools.default_timeout_seconds,
    compiler,
    ...(options.clock ? { now: options.clock } : {}),
  });
  const log = new ExecutionLog({
    dir: executionLogDir(config),
    retentionDays: config.tools.log_retention_days,
    ...(options.clock ? { now: options.clock } : {}),
    ...(options.onLogError ? { onError: options.onLogError } : {}),
  });
  const hostConfinement = options.hostConfinement ?? hostConfinementFor(config);
  const executor = new ToolExecutor({ registry, log, compiler, searchPath: config.env.PATH ?? defaultScriptPath, variables: config.env, hostConfinement, protectedVariables: serviceSecretVariables(config), ...(options.sandboxRunner ? { sandboxRunner: options.sandboxRunner } : {}), ...(options.clock ? { clock: options.clock } : {}) });
  const webSearch = createWebSearch(config, { log, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const invoker = new RegisteredToolsInvoker({ registry, executor });
  return { registry, executor, log, webSearch, invoker, check: () => registry.check() };
}
