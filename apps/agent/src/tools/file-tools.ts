import fs from "node:fs";
import path from "node:path";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ThinktankError } from "@thinktank/core";
import { withCodedErrors } from "./tool-failure.js";
import type { VirtualFileSystem, VirtualTarget } from "./virtual-file-system.js";

export interface FileToolsOptions {
  /** Largest text read_file returns in one call; the rest is reachable with offset and limit. @default 100_000 */
  readonly maxReadBytes?: number;
  /** Largest file write_file and str_replace produce, in bytes. @default 10 MiB */
  readonly maxWriteBytes?: number;
  /** Most entries ls shows. @default 1000 */
  readonly maxListEntries?: number;
}

const pathProperty = { type: "string", description: "Absolute virtual path, e.g. /mnt/user-data/workspace/report.md or /mnt/skills/public/<skill>/SKILL.md." };

/**
 * read_file, write_file, str_replace and ls over the virtual folders of one thread. Every path goes
 * through the VirtualFileSystem (no escapes, no symlinks out, /mnt/skills and uploads read-only,
 * disabled skills invisible). Files written into the workspace get the workspace's owner, so
 * sandboxed programs (bash, execute_code) can change them too.
 */
export function createFileTools(files: VirtualFileSystem, options: FileToolsOptions = {}): StructuredToolInterface[] {
  const maxReadBytes = options.maxReadBytes ?? 100_000;
  const maxWriteBytes = options.maxWriteBytes ?? 10 * 1024 * 1024;
  const maxListEntries = options.maxListEntries ?? 1000;

  const readFile = tool(
    ({ path: virtualPath, offset, limit }: { path: string; offset?: number; limit?: number }) =>
      withCodedErrors(async () => {
        const target = await files.resolve(virtualPath);
        const file = requireFile(target);
        const bytes = fs.readFileSync(file);
        if (bytes.subarray(0, 8192).includes(0)) return `${target.virtualPath} is a binary file (${bytes.length} bytes); it cannot be shown as text`;
        const text = bytes.toString("utf8");
        const lines = text.split("\n");
        const start = Math.max(0, (offset ?? 1) - 1);
        const selected = limit === undefined && start === 0 ? text : lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
        if (Buffer.byteLength(selected) <= maxReadBytes) return selected;
        return `${Buffer.from(selected).subarray(0, maxReadBytes).toString("utf8")}\n[... truncated: read more with offset and limit (the file has ${lines.length} lines)]`;
      }),
    {
      name: "read_file",
      description: "Read a text file (a skill's SKILL.md and the files it points to, or your own files). offset/limit read a range of lines.",
      schema: {
        type: "object",
        properties: {
          path: pathProperty,
          offset: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
          limit: { type: "integer", minimum: 1, description: "Number of lines to read." },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
  );

  const writeFile = tool(
    ({ path: virtualPath, content, append }: { path: string; content: string; append?: boolean }) =>
      withCodedErrors(async () => {
        const target = writableTarget(await files.resolve(virtualPath));
        const bytes = Buffer.byteLength(content);
        const existing = append && target.kind === "file" ? fs.statSync(target.hostPath).size : 0;
        if (existing + bytes > maxWriteBytes) throw new ThinktankError("PAYLOAD_TOO_LARGE", `${target.virtualPath} would be ${existing + bytes} bytes; the limit is ${maxWriteBytes}`);
        makeParents(target);
        fs.writeFileSync(target.hostPath, content, { flag: append ? "a" : "w" });
        adoptOwner(target.hostPath, target.root);
        return `${append ? "appended" : "wrote"} ${bytes} bytes to ${target.virtualPath}`;
      }),
    {
      name: "write_file",
      description: "Create or overwrite a text file under /mnt/user-data/workspace or /mnt/user-data/outputs (folders are created). append adds to the end instead.",
      schema: {
        type: "object",
        properties: { path: pathProperty, content: { type: "string", description: "The whole text to write." }, append: { type: "boolean", description: "Add to the end of the file instead of replacing it." } },
        required: ["path", "content"],
        additionalProperties: false,
      },
    },
  );

  const strReplace = tool(
    ({ path: virtualPath, old_str: oldText, new_str: newText, replace_all: replaceAll }: { path: string; old_str: string; new_str: string; replace_all?: boolean }) =>
      withCodedErrors(async () => {
        const target = writableTarget(await files.resolve(virtualPath));
        const file = requireFile(target);
        if (oldText === "") throw new ThinktankError("VALIDATION_FAILED", "old_str must not be empty");
        const text = fs.readFileSync(file, "utf8");
        const count = text.split(oldText).length - 1;
        if (count === 0) throw new ThinktankError("VALIDATION_FAILED", `old_str was not found in ${target.virtualPath}; read the file and copy the text exactly (spaces and line breaks included)`);
        if (count > 1 && !replaceAll) throw new ThinktankError("VALIDATION_FAILED", `old_str appears ${count} times in ${target.virtualPath}; include more surrounding text to make it unique, or set replace_all`);
        const updated = replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
        if (Buffer.byteLength(updated) > maxWriteBytes) throw new ThinktankError("PAYLOAD_TOO_LARGE", `${target.virtualPath} would exceed ${maxWriteBytes} bytes`);
        fs.writeFileSync(file, updated);
        return `replaced ${replaceAll ? count : 1} occurrence${(replaceAll ? count : 1) === 1 ? "" : "s"} in ${target.virtualPath}`;
      }),
    {
      name: "str_replace",
      description: "Edit a file under /mnt/user-data/workspace or /mnt/user-data/outputs: replace old_str (which must appear exactly once, unless replace_all) with new_str.",
      schema: {
        type: "object",
        properties: {
          path: pathProperty,
          old_str: { type: "string", description: "The exact text to replace, with enough context to be unique." },
          new_str: { type: "string", description: "The replacement text." },
          replace_all: { type: "boolean", description: "Replace every occurrence." },
        },
        required: ["path", "old_str", "new_str"],
        additionalProperties: false,
      },
    },
  );

  const ls = tool(
    ({ path: virtualPath }: { path: string }) =>
      withCodedErrors(async () => {
        const target = await files.resolve(virtualPath);
        let names: string[];
        if (target.kind === "listing") names = [...target.entries];
        else if (target.kind === "folder") {
          names = fs
            .readdirSync(target.hostPath, { withFileTypes: true })
            .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
            .sort();
        } else if (target.kind === "file") return `${target.virtualPath} is a file; read it with read_file`;
        else throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
        if (names.length === 0) return "(empty folder)";
        const shown = names.slice(0, maxListEntries);
        return names.length > shown.length ? `${shown.join("\n")}\n[... ${names.length - shown.length} more entries]` : shown.join("\n");
      }),
    {
      name: "ls",
      description: "List a folder: /mnt/skills/... (skills) or /mnt/user-data/{workspace,uploads,outputs}/... Folders end with '/'.",
      schema: { type: "object", properties: { path: pathProperty }, required: ["path"], additionalProperties: false },
    },
  );

  return [readFile, writeFile, strReplace, ls];
}

function requireFile(target: VirtualTarget): string {
  if (target.kind === "file") return target.hostPath;
  if (target.kind === "missing") throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
  throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; list it with ls`);
}

function writableTarget(target: VirtualTarget): Extract<VirtualTarget, { hostPath: string }> {
  if (target.kind === "listing" || !target.writable) {
    throw new ThinktankError("READ_ONLY_PATH", `${target.virtualPath} is read-only; write under /mnt/user-data/workspace or /mnt/user-data/outputs`);
  }
  if (target.kind === "folder") throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; give a file path`);
  return target;
}

/** Creates the missing folders above a new file, each owned like the folder's root. */
function makeParents(target: { hostPath: string; root: string }): void {
  const missing: string[] = [];
  for (let folder = path.dirname(target.hostPath); !fs.existsSync(folder); folder = path.dirname(folder)) missing.unshift(folder);
  for (const folder of missing) {
    fs.mkdirSync(folder);
    adoptOwner(folder, target.root);
  }
}

/** When the server runs as root and the folder belongs to the sandbox user, hand the new file or folder to that user. */
function adoptOwner(file: string, root: string): void {
  if (process.getuid?.() !== 0) return;
  const owner = fs.statSync(root);
  if (owner.uid !== 0) fs.chownSync(file, owner.uid, owner.gid);
}
