import type { Config } from "@thinktank/core";
import { hookBackendAvailability } from "@thinktank/plugins";
import type { SandboxExecutor } from "@thinktank/sandbox";

type Runtime = "python" | "node" | "shell";
type Availability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * What the gateway asks of the sandbox: whether a runtime's scripts run on the backend
 * `sandbox.backend` selects (the deno backend runs no shell script file), whether plugin hooks
 * do (not on local) and whether sandboxed stdio MCP servers do (bubblewrap only), so GET can say which untrusted script tools and hooks cannot run here. Shaped as the tools package's
 * SandboxedScriptRunner; the gateway runs no tool, so `run` refuses.
 */
export interface GatewaySandboxSupport {
  supports(runtime: Runtime): Promise<Availability>;
  /** Whether plugin hooks run on this backend (`hookBackendAvailability` of @thinktank/plugins: not on local). */
  hooks(): Promise<Availability>;
  /** Whether stdio MCP servers marked `sandbox: true` run on this backend (`serverAvailability` of @thinktank/sandbox: bubblewrap only). */
  stdioServers(): Promise<Availability>;
  run(): Promise<{ readonly kind: "sandbox-failed"; readonly code: "TOOL_UNAVAILABLE"; readonly message: string; readonly stderrTail: string }>;
  close(): Promise<void>;
}

const languages = { python: "python", node: "javascript", shell: "shell" } as const;

/**
 * A sandbox executor made on first use only (a GET that lists a script tool or a hook), with the
 * agent's config, so its answer is the agent's: `auto` probes bubblewrap once, as the agent does.
 * The sandbox package is imported then too, so start-up does not load it.
 */
export function lazySandboxSupport(config: Config): GatewaySandboxSupport {
  let executor: Promise<SandboxExecutor> | undefined;
  const made = (): Promise<SandboxExecutor> =>
    (executor ??= import("@thinktank/sandbox").then(({ createSandboxExecutor }) => createSandboxExecutor({ config, ...(config.env.PATH ? { searchPath: config.env.PATH } : {}) })));
  return {
    supports: async (runtime) => (await made()).supportsEntry(languages[runtime]),
    hooks: async () => hookBackendAvailability(await (await made()).describeBackend()),
    stdioServers: async () => {
      const [{ serverAvailability }, info] = await Promise.all([import("@thinktank/sandbox"), made().then((made) => made.describeBackend())]);
      return serverAvailability(info.backend);
    },
    run: async () => ({ kind: "sandbox-failed", code: "TOOL_UNAVAILABLE", message: "the gateway runs no script tool; the agent does", stderrTail: "" }),
    close: async () => {
      if (executor) await (await executor).close();
    },
  };
}
