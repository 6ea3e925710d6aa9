import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServerEntry } from "../../servers/server-entry.js";

/** The protocol-era test server (see era-test-server.mjs): real v1 and v2 SDK servers of each era. */
export const eraTestServerPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "era-test-server.mjs");

/** Which server: the v1 SDK (2025 era; `neither`: it answers initialize with "2099-01-01"), or the v2 SDK serving both eras or 2026-07-28 only. */
export type EraServerKind = { readonly sdk: "v1"; readonly era?: "legacy" | "neither" } | { readonly sdk: "v2"; readonly era: "both" | "modern" };

export interface EraServerOptions {
  /** The tools/list ttlMs a v2 server gives (2026-07-28). */
  readonly ttlMs?: number;
  /** A tool `extra` is listed while this file exists. */
  readonly extraToolFile?: string;
  /** A v2 server lists a tool `note(text)` that appends a line to this file (a side effect to count). */
  readonly notesFile?: string;
}

function eraArgs(kind: EraServerKind, options: EraServerOptions): string[] {
  return [
    eraTestServerPath,
    "--sdk",
    kind.sdk,
    "--era",
    kind.era ?? "legacy",
    ...(options.ttlMs !== undefined ? ["--ttl", String(options.ttlMs)] : []),
    ...(options.extraToolFile ? ["--extra-tool", options.extraToolFile] : []),
    ...(options.notesFile ? ["--notes", options.notesFile] : []),
  ];
}

/** A stdio entry running the era test server with the current Node binary. */
export function eraStdioEntry(kind: EraServerKind, options: EraServerOptions = {}): McpServerEntry {
  return { command: process.execPath, args: eraArgs(kind, options) };
}

export interface RunningEraServer {
  readonly url: string;
  readonly child: ChildProcess;
  close(): Promise<void>;
}

/** The era test server over streamable HTTP on 127.0.0.1 (a free port it picks), until close(). */
export async function startEraServerOverHttp(kind: EraServerKind, options: EraServerOptions = {}): Promise<RunningEraServer> {
  const child = spawn(process.execPath, [...eraArgs(kind, options), "--http"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const found = /listening (\S+)/.exec(seen);
      if (found) resolve(found[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`the era test server exited (${code}) before listening`)));
  });
  return {
    url,
    child,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
    },
  };
}
