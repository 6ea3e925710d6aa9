import type { Config } from "@thinktank/core";
import { hooksInSandbox, type PluginDetailView } from "@thinktank/plugins";
import { listScriptTools, type ScriptToolAvailability, type ScriptToolListing, type Skill } from "@thinktank/skills";
import type { ToolsService } from "@thinktank/tools";
import { lazySandboxSupport, type GatewaySandboxSupport } from "./sandbox-support.js";

/** A plugin's detail with what it brings that runs: its skills' script tools beside its hooks. */
export type PluginCodeView<T extends PluginDetailView = PluginDetailView> = T & { readonly script_tools: readonly ScriptToolListing[] };

/**
 * "Shown before it runs" (docs/architecture.md): every script tool and hook a package brings, with
 * where it would run, whether it asks first and whether it can run here, for the skill and plugin
 * answers of the gateway. The rules are the packages' (listScriptTools, listPluginHooks); this
 * wires them to the agent's config, the tools executor's availability and the sandbox backend.
 */
export interface CodeListing {
  /** The script tools of one skill, and why its tools.json cannot be used when it cannot. */
  skill(skill: Skill): Promise<{ readonly script_tools: ScriptToolListing[]; readonly problems: readonly string[] }>;
  /** The plugin's detail with its skills' script tools, and its hooks as they would run on this sandbox backend. */
  plugin<T extends PluginDetailView>(detail: T, skills: readonly Skill[]): Promise<PluginCodeView<T>>;
}

export interface CodeListingOptions {
  /** The tools executor says whether a script tool can run here (ToolExecutor.availability). */
  readonly tools: Pick<ToolsService, "executor"> | undefined;
  readonly sandbox: Pick<GatewaySandboxSupport, "supports" | "hooks">;
}

export function codeListingFor(config: Config, options: CodeListingOptions): CodeListing {
  const availability: ScriptToolAvailability = async (tool) =>
    options.tools ? options.tools.executor.availability(tool) : { ok: false, reason: "the tools service is not configured in this gateway" };
  const listOptions = { approval: config.tools.approval, availability, hostPrograms: config.plugins.host_programs };
  return {
    async skill(skill) {
      const { tools, problems } = await listScriptTools(skill, listOptions);
      return { script_tools: tools, problems };
    },
    async plugin(detail, skills) {
      const listed = await Promise.all(skills.map((skill) => listScriptTools(skill, listOptions).then((result) => ({ skill, ...result }))));
      const problems = listed.flatMap(({ skill, problems: found }) => found.map((message) => ({ severity: "warning" as const, file: `${skill.identity} tools.json`, message })));
      // Only ask the sandbox (which makes it on first use) when a hook would run.
      // A hook is a shell command line, not a script file: deno runs it in its simulated shell, as the agent does.
      const handlers = detail.hooks.handlers.some((hook) => hook.runs) ? hooksInSandbox(detail.hooks.handlers, await options.sandbox.hooks()) : detail.hooks.handlers;
      return {
        ...detail,
        hooks: { ...detail.hooks, executed: handlers.some((hook) => hook.runs), handlers },
        script_tools: listed.flatMap(({ tools }) => tools),
        problems: [...detail.problems, ...problems],
      };
    },
  };
}

/**
 * `deps.codeListing`, or one made for a route whose deps lack it (tests that build their own),
 * with a sandbox of its own made on first use; `close` stops that sandbox.
 */
export function routeCodeListing(config: Config, deps: { readonly codeListing?: CodeListing; readonly tools?: ToolsService; readonly sandbox?: GatewaySandboxSupport }): { listing: CodeListing; close(): Promise<void> } {
  if (deps.codeListing) return { listing: deps.codeListing, close: async () => undefined };
  const sandbox = deps.sandbox ?? lazySandboxSupport(config);
  return { listing: codeListingFor(config, { tools: deps.tools, sandbox }), close: async () => (deps.sandbox ? undefined : sandbox.close()) };
}
