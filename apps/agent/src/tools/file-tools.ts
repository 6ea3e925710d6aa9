import fs from "node:fs";
import path from "node:path";
import { tool } from "@langchain/core/tools";
import type { RequestProvider } from "../request/request-context.js";
import { resolveVirtualPath, type Mount } from "./virtual-paths.js";

/** Largest text read_file returns in one call; the rest is reachable with offset/limit. */
const maxReadBytes = 100_000;

/**
 * read_file and ls over the virtual folders: /mnt/skills (read-only) and the thread's
 * /mnt/user-data/{workspace,uploads,outputs}. A starting set of universal tools; the tools
 * library can replace this provider with its full set (write_file, str_replace, bash).
 */
export function createFileToolsProvider(options: { skillsContainerPath: string; skillsHostPath: string }): RequestProvider {
  return {
    name: "file-tools",
    contribute(request) {
      const mounts: Mount[] = [{ virtualPath: options.skillsContainerPath.replace(/\/+$/, ""), hostPath: options.skillsHostPath, writable: false }];
      for (const folder of ["workspace", "uploads", "outputs"]) {
        const hostPath = path.join(request.userDataDir, folder);
        fs.mkdirSync(hostPath, { recursive: true });
        mounts.push({ virtualPath: `/mnt/user-data/${folder}`, hostPath, writable: true });
      }
      return { tools: [readFileTool(mounts), lsTool(mounts)] };
    },
  };
}

function readFileTool(mounts: readonly Mount[]) {
  return tool(
    async ({ path: virtualPath, offset, limit }: { path: string; offset?: number; limit?: number }) => {
      const resolved = resolveVirtualPath(virtualPath, mounts);
      if (!resolved.ok) throw new Error(resolved.message);
      const stat = fs.statSync(resolved.hostPath);
      if (stat.isDirectory()) throw new Error(`${virtualPath} is a folder; use ls`);
      const text = fs.readFileSync(resolved.hostPath, "utf8");
      const lines = text.split("\n");
      const start = Math.max(0, (offset ?? 1) - 1);
      const selected = limit === undefined && start === 0 ? text : lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
      if (Buffer.byteLength(selected) <= maxReadBytes) return selected;
      return `${Buffer.from(selected).subarray(0, maxReadBytes).toString("utf8")}\n[... truncated: read more with offset and limit (the file has ${lines.length} lines)]`;
    },
    {
      name: "read_file",
      description: "Read a text file. Paths are virtual: /mnt/skills/... (skills, read-only) and /mnt/user-data/{workspace,uploads,outputs}/...",
      schema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Absolute virtual path of the file." },
          offset: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
          limit: { type: "integer", minimum: 1, description: "Number of lines to read." },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
  );
}

function lsTool(mounts: readonly Mount[]) {
  return tool(
    async ({ path: virtualPath }: { path: string }) => {
      const resolved = resolveVirtualPath(virtualPath, mounts);
      if (!resolved.ok) throw new Error(resolved.message);
      const entries = fs.readdirSync(resolved.hostPath, { withFileTypes: true });
      if (entries.length === 0) return "(empty folder)";
      return entries
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort()
        .join("\n");
    },
    {
      name: "ls",
      description: "List a folder. Paths are virtual: /mnt/skills/... and /mnt/user-data/{workspace,uploads,outputs}/...",
      schema: {
        type: "object",
        properties: { path: { type: "string", description: "Absolute virtual path of the folder." } },
        required: ["path"],
        additionalProperties: false,
      },
    },
  );
}
