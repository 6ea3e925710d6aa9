import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ExtensionsStore, localOperator, operatorId, type Config } from "@thinktank/core";
import { openIdentity } from "@thinktank/identity";
import { exportMemoryZip, memorySettingsFor, MemoryStore, resolveMemoryPath, setMemorySettings, type UserMemory } from "@thinktank/memory";
import type { CliCommand, CliIo } from "../cli-command.js";
import { loadCliConfig } from "./cli-config.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";

const who = "[--user ID --reason TEXT]";

/**
 * `thinktank memory list|show|edit|delete|forget|export|settings`: a user's memory on this machine,
 * through the same library and rules as the gateway's /api/memory. It acts as the operator (id
 * `admin`) on the operator's own memory; `--user ID` reaches another user's, as the gateway's
 * administrators' route does: it needs `--reason`, and every use is recorded in the audit log.
 */
export const memoryCommand: CliCommand = createSubcommandGroup("memory", "List, show, edit, delete, forget and export a user's memory; turn it on or off", {
  list: { usage: `memory list ${who} [--json]`, run: list },
  show: { usage: `memory show PATH ${who}   PATH: as the model sees it (/memories/profile.md) or below /memories (profile.md)`, run: show },
  edit: { usage: `memory edit PATH ${who} [--from FILE|-]   without --from: opens $VISUAL or $EDITOR on the file`, run: edit },
  delete: { usage: `memory delete PATH ${who}`, run: remove },
  forget: { usage: `memory forget --yes ${who}   removes every file of the memory`, run: forget },
  export: { usage: `memory export ${who} [--output FILE.zip|-]`, run: exportZip },
  settings: { usage: `memory settings ${who} [--enabled on|off] [--auto on|off] [--json]   without --enabled/--auto: shows them`, run: settings },
});

interface Target {
  readonly config: Config;
  readonly userId: string;
  readonly memory: UserMemory;
  /** Records the use in the audit log when it reaches another user's memory. */
  readonly audit: (action: string, target?: string, outcome?: "ok" | "failed") => Promise<void>;
}

const sharedOptions = { user: { type: "string" }, reason: { type: "string" }, json: { type: "boolean", default: false } } as const;

/** The memory a subcommand works on: the operator's, or with --user (and --reason) another user's, audited. */
async function target(io: CliIo, values: { user?: string; reason?: string }): Promise<Target> {
  const config = loadCliConfig(io);
  const userId = values.user ?? operatorId;
  const memory = MemoryStore.fromConfig(config).forUser(userId);
  if (values.user === undefined || values.user === operatorId) {
    if (values.reason !== undefined) throw usageError("--reason goes with --user");
    return { config, userId, memory, audit: async () => {} };
  }
  if (!values.reason || values.reason.trim().length < 3) throw usageError(`another user's memory needs --reason TEXT (kept in the audit log, as GET /api/users/${values.user}/memory does)`);
  const reason = values.reason.trim();
  // Recorded before the memory is touched: nothing of another user's is read or changed unrecorded.
  const audit = async (action: string, what = userId, outcome: "ok" | "failed" = "ok") => {
    const identity = await openIdentity(config);
    try {
      await identity.audit.record({ actor: { ...localOperator, name: "cli" }, action, target: what, outcome, source: "cli", detail: { reason } });
    } finally {
      await identity.close();
    }
  };
  return { config, userId, memory, audit };
}

/** A subcommand's values and its one PATH argument (when `withPath`). */
function parse<Extra extends Record<string, { type: "string" | "boolean"; default?: string | boolean }>>(args: string[], withPath: boolean, extra?: Extra) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...sharedOptions, ...(extra ?? {}) } });
  if (withPath && positionals.length !== 1) throw usageError("expected one PATH");
  if (!withPath && positionals.length > 0) throw usageError("takes no arguments");
  return { values: values as { user?: string; reason?: string; json: boolean } & Record<string, string | boolean | undefined>, path: positionals[0] ?? "" };
}

/** A path as given (absolute under /memories, or relative to it), checked by the memory rules. */
function memoryPath(given: string): string {
  return resolveMemoryPath(given, { relative: true }).virtual;
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, false);
  const { config, userId, memory, audit } = await target(io, values);
  await audit("memory.admin_list");
  const files = await memory.list();
  const settings = memorySettingsFor(config, (await new ExtensionsStore(config.extensions_config).read()).document, userId);
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ user: userId, files, total_bytes: files.reduce((sum, file) => sum + file.size, 0), settings }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(10, ...files.map((file) => file.path.length));
  for (const file of files) io.stdout.write(`${file.path.padEnd(width)}  ${String(file.size).padStart(8)} B  ${file.modified}\n`);
  io.stdout.write(`${files.length} file${files.length === 1 ? "" : "s"} in ${userId}'s memory; memory ${settings.enabled ? "on" : "off"}, automatic memory ${settings.auto ? "on" : "off"}\n`);
  return 0;
}

async function show(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, true);
  const { memory, audit } = await target(io, parsed.values);
  const file = memoryPath(parsed.path);
  await audit("memory.admin_read", `${memory.userId}:${file}`);
  const text = await memory.read(file);
  io.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
  return 0;
}

async function edit(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, true, { from: { type: "string" } });
  const { memory, audit } = await target(io, parsed.values);
  const file = memoryPath(parsed.path);
  const from = parsed.values.from as string | undefined;
  await audit("memory.admin_write", `${memory.userId}:${file}`);
  let text: string;
  if (from === "-") text = await readStdin(io);
  else if (from !== undefined) text = fs.readFileSync(path.resolve(io.cwd, from), "utf8");
  else {
    const before = await memory.read(file).catch((error: { code?: string }) => {
      if (error.code === "MEMORY_NOT_FOUND") return "";
      throw error;
    });
    const edited = runEditor(io, path.basename(file), before);
    if (edited === undefined) return 1;
    if (edited === before) {
      io.stdout.write(`${file} unchanged\n`);
      return 0;
    }
    text = edited;
  }
  const written = await memory.write(file, text);
  io.stdout.write(`wrote ${written.path} (${written.size} B)\n`);
  return 0;
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, true);
  const { memory, audit } = await target(io, parsed.values);
  const file = memoryPath(parsed.path);
  await audit("memory.admin_delete", `${memory.userId}:${file}`);
  await memory.remove(file);
  io.stdout.write(`deleted ${file}\n`);
  return 0;
}

async function forget(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, false, { yes: { type: "boolean", default: false } });
  if (parsed.values.yes !== true) throw usageError("forget removes every file of the memory: add --yes");
  const { memory, audit } = await target(io, parsed.values);
  await audit("memory.admin_forget");
  const removed = await memory.clear();
  io.stdout.write(`forgot ${removed} file${removed === 1 ? "" : "s"} of ${memory.userId}'s memory\n`);
  return 0;
}

async function exportZip(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, false, { output: { type: "string" } });
  const { memory, audit } = await target(io, parsed.values);
  await audit("memory.admin_export");
  const zip = await exportMemoryZip(memory);
  const output = (parsed.values.output as string | undefined) ?? `memory-${new Date().toISOString().slice(0, 10)}.zip`;
  if (output === "-") {
    io.stdout.write(zip);
    return 0;
  }
  const file = path.resolve(io.cwd, output);
  fs.writeFileSync(file, zip, { mode: 0o600 });
  io.stdout.write(`wrote ${file}\n`);
  return 0;
}

async function settings(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, false, { enabled: { type: "string" }, auto: { type: "string" } });
  const { config, userId, audit } = await target(io, parsed.values);
  const store = new ExtensionsStore(config.extensions_config);
  const choice = { ...switchValue("--enabled", parsed.values.enabled), ...switchValue("--auto", parsed.values.auto) };
  const changing = Object.keys(choice).length > 0;
  const document = changing ? await setMemorySettings(store, userId, choice) : (await store.read()).document;
  if (changing) await audit("memory.admin_settings");
  const applied = memorySettingsFor(config, document, userId);
  io.stdout.write(parsed.values.json ? `${JSON.stringify({ user: userId, ...applied }, null, 2)}\n` : `${userId}: memory ${applied.enabled ? "on" : "off"}, automatic memory ${applied.auto ? "on" : "off"}\n`);
  return 0;
}

function switchValue(name: string, value: string | boolean | undefined): { enabled?: boolean } | { auto?: boolean } {
  if (value === undefined) return {};
  const key = name.slice(2);
  if (value === "on" || value === "true") return { [key]: true };
  if (value === "off" || value === "false") return { [key]: false };
  throw usageError(`${name} takes on or off, got '${String(value)}'`);
}

/** Opens $VISUAL or $EDITOR on a private copy; the edited text, or undefined when the editor failed. */
function runEditor(io: CliIo, name: string, text: string): string | undefined {
  const editor = io.env.VISUAL || io.env.EDITOR;
  if (!editor) throw usageError("set $VISUAL or $EDITOR, or give the new text with --from FILE (or - for stdin)");
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "thinktank-memory-"));
  try {
    const file = path.join(folder, name.replace(/[^\w.-]/g, "_") || "memory.md");
    fs.writeFileSync(file, text, { mode: 0o600 });
    // The editor command may carry arguments (`code --wait`); the file's path is quoted for the shell.
    const result = spawnSync(`${editor} '${file.replace(/'/g, "'\\''")}'`, { shell: true, stdio: "inherit", env: { ...io.env } as NodeJS.ProcessEnv });
    if (result.status !== 0) {
      io.stderr.write(`thinktank memory edit: the editor (${editor}) exited with ${result.status ?? result.signal}; nothing was written\n`);
      return undefined;
    }
    return fs.readFileSync(file, "utf8");
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}
