import { hookBackendAvailability, HookSession, PluginHooks, type PluginSnapshot } from "@thinktank/plugins";
import { sandboxPaths, VirtualFileSystem } from "@thinktank/sandbox";
import { sandboxHookRunner } from "../hooks/sandbox-hook-runner.js";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

/**
 * The enabled plugins' command hooks for each run (docs/plugins.md, "Hooks"): indexed once per
 * plugin snapshot (problems logged then), and, when any plugin has one, a HookSession for the run
 * whose commands run in the thread's sandbox (sandboxHookRunner). No hook at all: no contribution,
 * and the graph runs as without plugins. `plugins.host_programs: deny` runs none, and neither does
 * a sandbox backend that isolates nothing (`sandbox.backend: local`; hookBackendAvailability, as GET
 * /api/plugins/:name shows it): a plugin's hooks never run unisolated on the host.
 */
export function createHooksProvider(runtime: AgentRuntime): RequestProvider {
  const { config, logger } = runtime;
  let indexed: { plugins: PluginSnapshot; hooks: PluginHooks } | undefined;
  const hooksOf = (plugins: PluginSnapshot): PluginHooks => {
    if (indexed?.plugins === plugins) return indexed.hooks;
    const hooks = PluginHooks.from(plugins.plugins, { hostPrograms: config.plugins.host_programs });
    for (const problem of hooks.problems) logger[problem.level]({ plugin: problem.plugin, file: problem.file, event: problem.event }, `plugin ${problem.plugin}: ${problem.message}`);
    if (config.plugins.host_programs === "deny" && plugins.plugins.some((plugin) => plugin.hooks.length > 0)) {
      logger.info({ plugins: plugins.plugins.filter((plugin) => plugin.hooks.length > 0).map((plugin) => plugin.name) }, "plugin hooks do not run: plugins.host_programs is deny");
    }
    indexed = { plugins, hooks };
    return hooks;
  };
  let unisolatedLogged = false;
  return {
    name: "plugin-hooks",
    async contribute(request) {
      const hooks = hooksOf((await runtime.snapshotFor(request)).plugins);
      if (hooks.isEmpty) return {};
      const backend = hookBackendAvailability(await runtime.executor.describeBackend());
      if (!backend.ok) {
        if (!unisolatedLogged) logger.warn({}, `plugin hooks do not run: ${backend.reason}`);
        unisolatedLogged = true;
        return {};
      }
      const files = new VirtualFileSystem({
        skills: runtime.skillFilesFor(request.ownerId),
        containerPath: config.skills.container_path,
        folders: request.folders,
        ensureWorkspace: () => runtime.executor.workspaceFor(request.threadId),
      });
      const session = new HookSession({
        hooks,
        runner: sandboxHookRunner({ executor: runtime.executor, files }),
        facts: { sessionId: request.threadId, cwd: sandboxPaths.workspace },
        logger,
        maxTimeoutSeconds: config.code_execution.max_timeout_seconds,
      });
      return { hooks: session };
    },
  };
}
