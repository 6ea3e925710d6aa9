import type { RunnableConfig } from "@langchain/core/runnables";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { trackRunWork } from "@thinktank/core";
import type { SandboxExecutor, SandboxResult, VirtualFileSystem } from "@thinktank/sandbox";
import { withCodedErrors } from "./tool-failure.js";

export interface BashToolOptions {
  readonly executor: SandboxExecutor;
  /** The thread's virtual folders: its workspace, and what is mounted besides (VirtualFileSystem.sandboxMounts). */
  readonly files: VirtualFileSystem;
  /** config.code_execution.timeout_seconds */
  readonly defaultTimeoutSeconds: number;
  /** config.code_execution.max_timeout_seconds */
  readonly maxTimeoutSeconds: number;
  /** config.sandbox.network.allow: hosts commands may reach through the sandbox's egress proxy (HTTP_PROXY / HTTPS_PROXY). @default none */
  readonly network?: readonly string[];
  /** The thread, for the egress log. @default none */
  readonly threadId?: string;
}

/**
 * `bash(command)`: a shell command line in the thread's sandbox (config.sandbox.backend; on the deno
 * backend a shell simulated by just-bash inside Deno's permissions, with no host program; never the
 * bare host unless that says `local`). The workspace is read-write and the working folder; every
 * enabled skill's folder is mounted read-only at its /mnt/skills path (disabled skills are absent),
 * /mnt/user-data/uploads read-only, and /mnt/user-data/outputs read-write (the sandbox user is given
 * the folder, as it is the workspace, so write_file and bash can both change what is there).
 * Cancelling the run kills the command with every process it started.
 */
export function createBashTool(options: BashToolOptions): StructuredToolInterface {
  return tool(
    ({ command, timeout }: { command: string; timeout?: number }, config?: RunnableConfig) =>
      withCodedErrors(async () => {
        const seconds = Math.min(timeout ?? options.defaultTimeoutSeconds, options.maxTimeoutSeconds);
        const workspaceDir = options.files.userFolder("workspace");
        const mounts = await options.files.sandboxMounts();
        // The run's signal: cancelling the run kills the command's whole process tree.
        const network = options.network && options.network.length > 0 ? { network: options.network, networkLabel: `bash ${options.threadId ?? "(no thread)"}` } : {};
        const execution = options.executor.run({ language: "shell", source: command, workspaceDir, mounts, timeoutMs: seconds * 1000, signal: config?.signal, ...network });
        const result = await trackRunWork(config, execution);
        return describeResult(result);
      }),
    {
      name: "bash",
      description:
        `Run a bash command line in a sandbox (${networkNote(options.network)}). Working folder /mnt/user-data/workspace (read-write, kept between calls); ` +
        "skills are readable under /mnt/skills, uploads under /mnt/user-data/uploads read-only; save deliverables to /mnt/user-data/outputs (read-write). Returns the exit code, stdout and stderr." +
        // Without bubblewrap (the deno backend) the shell is just-bash: bash and coreutils-like commands simulated over the same folders, no host program.
        (options.executor.backend === "deno" ? " This shell is simulated: bash syntax and common commands (ls, cat, grep, sed, awk, jq, find, sort...), but no python3, node or other programs; run Python with execute_code." : ""),
      schema: {
        type: "object",
        properties: {
          command: { type: "string", description: "The command line, e.g. python3 /mnt/skills/public/<skill>/scripts/run.py input.csv" },
          timeout: { type: "number", exclusiveMinimum: 0, description: `Seconds. Default ${options.defaultTimeoutSeconds}, at most ${options.maxTimeoutSeconds}.` },
        },
        required: ["command"],
        additionalProperties: false,
      },
    },
  );
}

/** What the description says about the network: none, or the declared hosts through the proxy. */
function networkNote(network: readonly string[] | undefined): string {
  if (!network || network.length === 0) return "no network";
  return `no network but these hosts, through the sandbox's proxy, which curl, wget and pip find in HTTPS_PROXY: ${network.join(", ")}`;
}

function describeResult(result: SandboxResult): string {
  const parts: string[] = [];
  if (result.error) parts.push(`error: ${result.error.code}: ${result.error.message}`);
  parts.push(`exit code: ${result.exitCode === null ? "none (stopped)" : result.exitCode}`);
  if (result.stdout) parts.push(`stdout:\n${result.stdout}`);
  if (result.stderr) parts.push(`stderr:\n${result.stderr}`);
  return parts.join("\n");
}
