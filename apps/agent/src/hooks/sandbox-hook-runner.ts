import type { HookCommandRequest, HookCommandResult, HookCommandRunner } from "@thinktank/plugins";
import { sandboxPaths, type SandboxExecutor, type VirtualFileSystem } from "@thinktank/sandbox";

/** Where a plugin's folder appears inside the sandbox: `/mnt/plugins/<plugin>` (CLAUDE_PLUGIN_ROOT). */
export const pluginsSandboxPath = "/mnt/plugins";

export interface SandboxHookRunnerOptions {
  readonly executor: SandboxExecutor;
  /** The thread's virtual folders: its workspace and what bash sees besides. */
  readonly files: VirtualFileSystem;
}

const denoShellNote =
  "(this agent's sandbox backend is deno, whose shell is simulated by just-bash: there is no python3, node or other program to run; a hook that needs one runs on the bubblewrap backend)";

/**
 * Runs a plugin's command hook in the thread's sandbox, always, as bash runs: a shell command line
 * (on the deno backend, just-bash) with the thread's workspace read-write as its working folder,
 * the skills, uploads and outputs as on bash, no network, and the plugin's installed folder
 * read-only at `/mnt/plugins/<plugin>`, which is `CLAUDE_PLUGIN_ROOT` (set, and `${CLAUDE_PLUGIN_ROOT}`
 * in the command replaced by it). The input JSON is its stdin; it is killed with its whole process
 * tree at its timeout or when the run is cancelled. On deno a command not found (exit 127) says why.
 */
export function sandboxHookRunner(options: SandboxHookRunnerOptions): HookCommandRunner {
  const { executor, files } = options;
  return {
    async run(request: HookCommandRequest): Promise<HookCommandResult> {
      const root = `${pluginsSandboxPath}/${request.plugin}`;
      const mounts = [...(await files.sandboxMounts()), { hostPath: request.pluginRoot, sandboxPath: root }];
      const result = await executor.run({
        language: "shell",
        source: request.command.replaceAll("${CLAUDE_PLUGIN_ROOT}", root),
        workspaceDir: files.userFolder("workspace"),
        mounts,
        env: { CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: sandboxPaths.workspace },
        stdin: request.stdin,
        timeoutMs: request.timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const notFoundOnDeno = result.exitCode === 127 && executor.backend === "deno";
      return {
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: notFoundOnDeno ? `${result.stderr.trimEnd()}\n${denoShellNote}\n` : result.stderr,
        timedOut: result.timedOut,
        ...(result.error ? { error: result.error } : {}),
      };
    },
  };
}
