// What the attack suite checks after each attack, on the host: files planted outside, setuid bits,
// secrets in what the tools returned, wrote or the service recorded, and the attack tools' reports.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { expect } from "vitest";
import type { AttackReport } from "./attack-report.js";
import type { AttackStack } from "./attack-stack.js";

export type Message = { type: string; name?: string; content: unknown; status?: string; additional_kwargs?: Record<string, unknown> };
export type Interrupt = { value: { action_requests: { name: string; args: Record<string, unknown>; description: string }[]; tool_approvals: Record<string, unknown>[] } };
export type Values = { messages: Message[]; __interrupt__?: Interrupt[] };

/** Every file under `root` (not following links), with its mode; folders that cannot be read are skipped. */
export function walk(root: string): { file: string; mode: number }[] {
  const found: { file: string; mode: number }[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) found.push({ file: full, mode: fs.lstatSync(full).mode });
    }
  }
  return found;
}

/** Files named after the marker that an attack planted under any of `roots` (the host's /tmp: its top level only). */
export function plantedFiles(marker: string, roots: readonly string[]): string[] {
  const tmps = [...new Set(["/tmp", os.tmpdir()])].filter((tmp) => fs.existsSync(path.join(tmp, `planted-${marker}`))).map((tmp) => path.join(tmp, `planted-${marker}`));
  return [...tmps, ...roots.flatMap((root) => walk(root).map((entry) => entry.file))].filter((file) => path.basename(file) === `planted-${marker}`);
}

/** Files under the project with a setuid or setgid bit. */
export function setuidFiles(projectDir: string): string[] {
  return walk(projectDir)
    .filter((entry) => (entry.mode & 0o6000) !== 0)
    .map((entry) => `${entry.file} ${(entry.mode & 0o7777).toString(8)}`);
}

/** The secrets that nothing the service starts may see, and names only the service's own environment holds. */
export function expectNoSecrets(stack: AttackStack, what: string, text: string): void {
  for (const secret of Object.values(stack.secrets)) expect(text.includes(secret), `${what} holds a secret of the service`).toBe(false);
  for (const name of ["THINKTANK_CONFIG=", "AGENT_PORT=", "GATEWAY_PORT="]) expect(text.includes(name), `${what} holds the service's environment (${name})`).toBe(false);
}

/** The JSON a script tool answered, from its tool message (the data, or an envelope holding it). */
export function reportOf(message: Message | undefined): AttackReport {
  if (!message) throw new Error("no tool message");
  if (message.status === "error") throw new Error(`the tool failed: ${String(message.content)}`);
  const value = JSON.parse(String(message.content)) as { data?: AttackReport } & AttackReport;
  const report = value.data ?? value;
  if (typeof report.words !== "number") throw new Error(`not an attack report: ${String(message.content).slice(0, 500)}`);
  return report;
}

/** The tool messages of a thread's last run, by tool name. */
export function toolMessages(values: Values): Map<string, Message> {
  return new Map(values.messages.filter((message) => message.type === "tool" && message.name).map((message) => [message.name as string, message]));
}

/** Everything the thread holds, as one text (its messages with every tool result and hook context). */
export async function threadText(client: Client, threadId: string): Promise<string> {
  return JSON.stringify((await client.threads.getState(threadId)).values);
}

/** Everything under the project's data folder that the service wrote as text: the logs (the tools execution log), the workspaces. */
export function dataFolderText(projectDir: string): string {
  return walk(path.join(projectDir, "data"))
    .filter((entry) => !entry.file.includes(`${path.sep}oauth${path.sep}`) && !/\.sqlite(-wal|-shm|-journal)?$/.test(entry.file))
    .map((entry) => {
      try {
        return fs.readFileSync(entry.file, "utf8");
      } catch {
        return "";
      }
    })
    .join("\n");
}

/** What a sandboxed attack tool must have got: its job done, every attack failed. */
export function expectSandboxedAttacksFailed(report: AttackReport, options: { backend: "deno" | "bubblewrap"; agentPid: number }): void {
  const agent = String(options.agentPid);
  expect(report.words).toBe(5);
  // Its own working folder is writable; its skill's folder and the data folder are not.
  expect(report.wrote).toMatchObject({ work: true, skill: false, data: false });
  // No host file of the project (or anywhere the sandbox was not given) is visible.
  for (const [name, read] of Object.entries(report.reads)) expect(read.ok, `${report.runtime} read ${name}: ${JSON.stringify(read)}`).toBe(false);
  expect(report.ptrace[agent]).toBeDefined();
  expect(report.ptrace[agent]).not.toMatch(/^(attached|read)/);
  expect(report.direct).not.toBe("connected");
  // Through the proxy: refused (403) or unanswerable, never the listener's (it answers nothing).
  expect(report.proxy?.undeclared, JSON.stringify(report.proxy)).not.toMatch(/^2\d\d$/);
  expect(report.proxy?.declared_private, JSON.stringify(report.proxy)).not.toMatch(/^2\d\d$/);
  expect(report.proxy?.declared_private_tls, JSON.stringify(report.proxy)).not.toMatch(/^2\d\d$/);
  if (options.backend === "bubblewrap") {
    // A real /proc: it reads its own environ (the probe works) and sees the children it started.
    expect(report.self_environ).toBe(true);
    expect(report.children).toMatchObject({ started: true, seen: true });
    // The bits may be set, but the working folder is mounted nosuid (and the walk after the run strips them).
    if (report.setuid.mode && (Number.parseInt(report.setuid.mode, 8) & 0o6000) !== 0) expect(report.setuid.nosuid).toBe(true);
    expect(report.proxy?.undeclared).toBe("403");
    expect(report.proxy?.declared_private).toBe("403");
  } else {
    expect(report.children.started).toBe(false);
    if (report.runtime === "node") expect(report.proxy).toMatchObject({ undeclared: "403", declared_private: "403" });
  }
}

/** The refused connections of one execution record: the undeclared address, the declared name resolving to loopback (plain and CONNECT). */
export function expectRefusedInRecord(record: Record<string, unknown> | undefined, port: number): void {
  const network = (record?.network ?? []) as { kind: string; host: string; port: number; address?: string; allowed: boolean; reason: string; status: number }[];
  expect(network, JSON.stringify(record)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ kind: "http", host: "127.0.0.1", port, allowed: false, status: 403, reason: expect.stringContaining("an IP address is allowed only when listed") }),
      expect.objectContaining({ kind: "http", host: "localhost", port, allowed: false, status: 403, address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/), reason: expect.stringContaining("resolves to loopback") }),
      expect.objectContaining({ kind: "connect", host: "localhost", port, allowed: false, status: 403 }),
      expect.objectContaining({ host: "status.example.com", port: 80 }),
    ]),
  );
  // Nothing reached a private address; the public-looking name was allowed by its pattern or could not be resolved here.
  for (const connection of network) {
    if (connection.host === "status.example.com") expect(connection.reason).toMatch(/allowed by \*\.example\.com|could not be resolved|has no address/);
    else expect(connection.allowed).toBe(false);
  }
}
