import { isThinktankError } from "@thinktank/core";
import type { Skill } from "../skill-types.js";
import { scriptApproval, type ScriptApproval, type ScriptApprovalPolicy } from "./script-approval.js";
import type { ScopedScriptTool } from "./script-tool-runner.js";
import { readSkillContextSpec } from "./skill-context-spec.js";

/** One script tool a skill brings (tools.json), as the gateway shows it before anything runs. */
export interface ScriptToolListing {
  /** The skill's identity (`custom:words`, `plugin:sales:call-prep`). */
  readonly skill: string;
  readonly name: string;
  readonly runtime: "python" | "node" | "shell";
  /** The script as tools.json names it, under the skill's scripts/ folder. */
  readonly script: string;
  /** The hosts it may reach (through the egress proxy, from the sandbox); empty: none. */
  readonly network: readonly string[];
  /** The names of the environment variables it gets (never their values). */
  readonly env: readonly string[];
  /** The skill's trust: trusted code runs on the host (confined), untrusted code in the sandbox. */
  readonly trusted: boolean;
  readonly sandboxed: boolean;
  readonly approval: ScriptApproval;
  /** Whether it can run here; when not, the model is never offered it. */
  readonly available: boolean;
  readonly reason?: string;
}

/** Whether a script tool can run here (ToolExecutor.availability of @thinktank/tools fits). */
export type ScriptToolAvailability = (tool: ScopedScriptTool) => Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;

export interface ListScriptToolsOptions {
  /** config.tools.approval. */
  readonly approval: ScriptApprovalPolicy;
  /** Whether each tool can run here (an untrusted one needs a sandbox that runs its runtime). */
  readonly availability: ScriptToolAvailability;
  /** config.plugins.host_programs: `deny` runs no script of a plugin's skill. @default "allow" */
  readonly hostPrograms?: "allow" | "sandbox" | "deny";
}

/** Why no script of `skill` runs, whatever the tool: a plugin's skill under `plugins.host_programs: deny`. */
export function hostProgramsDenial(skill: Pick<Skill, "category">, hostPrograms: ListScriptToolsOptions["hostPrograms"]): string | undefined {
  return hostPrograms === "deny" && skill.category.startsWith("plugin:") ? "plugins.host_programs is deny: no program a plugin brings runs" : undefined;
}

/**
 * The script tools of `skill`'s tools.json with where and how each would run: its trust (the
 * skill's), whether it asks first (`approval`), and whether it can run here at all. A tools.json
 * that cannot be read lists no tool and says why in `problems` (the agent offers none of them
 * either); what it claims and is ignored (`trusted`) is in `problems` too.
 */
export async function listScriptTools(skill: Skill, options: ListScriptToolsOptions): Promise<{ tools: ScriptToolListing[]; problems: string[] }> {
  let spec;
  try {
    spec = readSkillContextSpec(skill.dir, { trusted: skill.trusted, containerDir: skill.containerDir });
  } catch (error) {
    if (isThinktankError(error) && error.code === "SKILL_CONTEXT_INVALID") return { tools: [], problems: [`${error.message}; none of its tools is offered`] };
    throw error;
  }
  const denied = hostProgramsDenial(skill, options.hostPrograms);
  const tools = await Promise.all(
    spec.tools.flatMap((reference) => {
      if (reference.kind !== "script") return [];
      const { kind: _kind, ...tool } = reference;
      return [
        (async (): Promise<ScriptToolListing> => {
          const available = denied === undefined ? await options.availability(tool) : ({ ok: false, reason: denied } as const);
          return {
            skill: skill.identity,
            name: tool.name,
            runtime: tool.runtime,
            script: tool.script,
            network: [...(tool.network ?? [])],
            env: Object.keys(tool.env ?? {}).sort(),
            trusted: skill.trusted,
            sandboxed: !skill.trusted,
            approval: scriptApproval(options.approval, skill),
            available: available.ok,
            ...(available.ok ? {} : { reason: available.reason }),
          };
        })(),
      ];
    }),
  );
  return { tools, problems: [...(spec.warnings ?? [])] };
}

/** JSON Schema of ScriptToolListing, for route responses and the OpenAPI document. */
export const scriptToolListingSchema = {
  type: "object",
  required: ["skill", "name", "runtime", "script", "network", "env", "trusted", "sandboxed", "approval", "available"],
  additionalProperties: false,
  properties: {
    skill: { type: "string", description: "the skill's identity" },
    name: { type: "string" },
    runtime: { type: "string", enum: ["python", "node", "shell"] },
    script: { type: "string", description: "the script as tools.json names it, under the skill's scripts/ folder" },
    network: { type: "array", items: { type: "string" }, description: "hosts it may reach through the egress proxy (host, host:port, *.domain[:port]); empty: none" },
    env: { type: "array", items: { type: "string" }, description: "names of the environment variables it gets (never their values)" },
    trusted: { type: "boolean", description: "the skill's trust" },
    sandboxed: { type: "boolean", description: "untrusted code runs in the sandbox; trusted code on the host, confined" },
    approval: {
      type: "string",
      enum: ["per-thread", "approved", "not-required"],
      description: "per-thread: its first call in each thread asks (tools.approval); approved: an administrator approved the skill's scripts (scripts_approved); not-required: it never asks",
    },
    available: { type: "boolean", description: "false: it cannot run here (reason), and the model is never offered it" },
    reason: { type: "string" },
  },
} as const;
