import { VirtualFileSystem } from "@thinktank/sandbox";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { createBashTool } from "../tools/bash-tool.js";
import { createFileTools } from "../tools/file-tools.js";
import { createPresentFilesTool } from "../tools/present-files-tool.js";

/**
 * The universal tools of every context: read_file, write_file, str_replace, ls over /mnt/skills
 * (enabled skills only, read-only) and the thread's /mnt/user-data folders, bash in the thread's
 * sandbox, and present_files (files the model shows the user: the thread state's `artifacts`).
 * Folders are created on first use, not per request.
 */
export function createUniversalToolsProvider(runtime: AgentRuntime): RequestProvider {
  const { config } = runtime;
  return {
    name: "universal-tools",
    contribute(request) {
      const files = new VirtualFileSystem({
        skills: runtime.skillFilesFor(request.ownerId),
        containerPath: config.skills.container_path,
        folders: request.folders,
        ensureWorkspace: () => runtime.executor.workspaceFor(request.threadId),
      });
      const bash = createBashTool({
        executor: runtime.executor,
        files,
        defaultTimeoutSeconds: config.code_execution.timeout_seconds,
        maxTimeoutSeconds: config.code_execution.max_timeout_seconds,
        network: config.sandbox.network.allow,
        threadId: request.threadId,
      });
      return { tools: [...createFileTools(files, { maxWriteBytes: config.sandbox.max_file_mb * 1024 * 1024 }), bash, createPresentFilesTool(files, request.threadId)] };
    },
  };
}
