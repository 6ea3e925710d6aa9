import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError, copyFolder, defaultArchiveLimits, extractZip, type ArchiveLimits } from "@thinktank/core";
import type { AgentProblem, ParsedAgent } from "./agent-types.js";
import { isUsableName, type AgentRefusalCode } from "./parse-agent.js";
import { maxAgentFileBytes, readAgentFile } from "./read-agent-file.js";

/**
 * What to install: one uploaded agent file (`fileName` as uploaded, which must end in `.md`), an
 * uploaded zip of agent files, or (administrators) a `.md` file, a folder of them or a zip on
 * this machine. A package's agents are the `*.md` files of its `agents/` folder when it has one,
 * else of its top (a single wrapper folder is looked into).
 */
export type AgentPackageSource =
  | { readonly kind: "file"; readonly data: Buffer; readonly fileName?: string }
  | { readonly kind: "archive"; readonly data: Buffer }
  | { readonly kind: "path"; readonly path: string };

export interface InstallAgentsOptions {
  /** Where the agents go (agents/custom, or a user's own folder); created when missing. */
  readonly targetRoot: string;
  readonly source: AgentPackageSource;
  /** Replace installed agents of the same names. @default false */
  readonly overwrite?: boolean;
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** A message when another file in the folder already defines this name (so `<name>.md` would make a duplicate). @default no other checks */
  readonly identityTaken?: (name: string) => string | undefined | Promise<string | undefined>;
  /** Clock for removing staging folders a crash left (older than an hour). @default Date.now */
  readonly now?: () => number;
}

/** One agent installed: its file in the folder, as read, and what the lenient reading accepted. */
export interface InstalledAgentFile {
  readonly agent: ParsedAgent;
  readonly file: string;
  readonly warnings: readonly AgentProblem[];
}

const stagingPrefix = ".staging-";
const zipMagic = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Left out of every package: macOS metadata, and dotfiles and dot-folders anywhere. */
function ignored(segments: readonly string[]): boolean {
  return segments.some((segment) => segment === "__MACOSX" || segment.startsWith("."));
}

/**
 * Installs agent files into `targetRoot` as `<name>.md`, all or nothing: the package is unpacked
 * into a staging folder inside the target (core's archive rules and limits: traversal, links,
 * look-alike names, sizes and ratios), every file is read as the loader reads it, and any file
 * that cannot be used refuses the whole install with its code (INVALID_AGENT,
 * FRONTMATTER_TOO_COMPLEX, FILE_TOO_LARGE; a frontmatter name that is not a usable name is
 * refused, never renamed). An agent already installed under that name is AGENT_NAME_CONFLICT
 * unless `overwrite`. After any failure nothing of the package is left.
 */
export async function installAgents(options: InstallAgentsOptions): Promise<InstalledAgentFile[]> {
  const root = options.targetRoot;
  await fs.mkdir(root, { recursive: true });
  await removeStaleStaging(root, (options.now ?? Date.now)());
  const staging = await fs.mkdtemp(path.join(root, stagingPrefix));
  const moved: { target: string; aside?: string }[] = [];
  try {
    const files = await unpack(options.source, path.join(staging, "package"), options.limits ?? defaultArchiveLimits);
    const agents = readAll(files);
    for (const { agent } of agents) {
      const taken = await options.identityTaken?.(agent.name);
      if (taken) throw new ThinktankError("AGENT_NAME_CONFLICT", taken);
      const present = await fs.lstat(path.join(root, `${agent.name}.md`)).catch(() => undefined);
      if (present && !options.overwrite) {
        throw new ThinktankError("AGENT_NAME_CONFLICT", `an agent named "${agent.name}" is already installed; pass overwrite=true to replace it`, { details: { name: agent.name } });
      }
      // Only an agent file is replaced: a folder or a link in its place stays, and nothing is installed.
      if (present && !present.isFile()) throw new ThinktankError("AGENT_NAME_CONFLICT", `${agent.name}.md in the agents folder is not an agent file; nothing was replaced`, { details: { name: agent.name } });
    }
    const installed: InstalledAgentFile[] = [];
    for (const { agent, absolute, warnings } of agents) {
      const target = path.join(root, `${agent.name}.md`);
      const aside = (await exists(target)) ? path.join(staging, `previous-${moved.length}.md`) : undefined;
      if (aside) await fs.rename(target, aside);
      moved.push({ target, ...(aside ? { aside } : {}) });
      await fs.rename(absolute, target);
      installed.push({ agent: { ...agent, file: `${agent.name}.md` }, file: target, warnings });
    }
    return installed;
  } catch (error) {
    // Put back what was replaced, take out what was added.
    for (const { target, aside } of moved.reverse()) {
      await fs.rm(target, { force: true }).catch(() => undefined);
      if (aside) await fs.rename(aside, target).catch(() => undefined);
    }
    throw error;
  } finally {
    fsSync.rmSync(staging, { recursive: true, force: true });
  }
}

interface Candidate {
  readonly absolute: string;
  /** As the package names it, for problems. */
  readonly relative: string;
}

/** The package's agent files, unpacked under `destination`. */
async function unpack(source: AgentPackageSource, destination: string, limits: ArchiveLimits): Promise<Candidate[]> {
  if (source.kind === "archive" || (source.kind === "file" && source.data.subarray(0, 4).equals(zipMagic))) {
    await extractZip(source.data, destination, { limits, skip: ignored });
    return agentFilesOf(destination);
  }
  if (source.kind === "file") return [await stageOne(source.data, source.fileName ?? "agent.md", destination)];
  let stat;
  try {
    stat = await fs.stat(source.path);
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `${source.path} does not exist`, { cause: error });
  }
  if (stat.isDirectory()) {
    await copyFolder(source.path, destination, { limits, skip: ignored });
    return agentFilesOf(destination);
  }
  if (!stat.isFile()) throw new ThinktankError("INVALID_AGENT", `${source.path} is neither an agent file, a folder nor a zip`);
  if (stat.size > Math.max(maxAgentFileBytes, limits.maxTotalBytes)) throw new ThinktankError("FILE_TOO_LARGE", `${source.path} is ${stat.size} bytes, more than an install reads`);
  const data = await fs.readFile(source.path);
  if (data.subarray(0, 4).equals(zipMagic)) {
    await extractZip(data, destination, { limits, skip: ignored });
    return agentFilesOf(destination);
  }
  return [await stageOne(data, path.basename(source.path), destination)];
}

/** One uploaded file: an agent file only (`.md`, text). */
async function stageOne(data: Buffer, fileName: string, destination: string): Promise<Candidate> {
  if (!/\.md$/i.test(fileName)) throw new ThinktankError("INVALID_AGENT", `${JSON.stringify(path.basename(fileName))} is not an agent file: upload a .md agent file or a .zip of them`);
  if (data.length > maxAgentFileBytes) throw new ThinktankError("FILE_TOO_LARGE", `the agent file is ${data.length} bytes, more than an agent file may be (${maxAgentFileBytes})`);
  if (data.includes(0)) throw new ThinktankError("INVALID_AGENT", "the agent file is not text (it holds NUL bytes)");
  await fs.mkdir(destination, { recursive: true });
  const absolute = path.join(destination, "upload.md");
  await fs.writeFile(absolute, data);
  return { absolute, relative: path.basename(fileName) };
}

/** The `*.md` files of the package's `agents/` folder, else of its top; a single wrapper folder is looked into. */
async function agentFilesOf(top: string): Promise<Candidate[]> {
  let base = top;
  let prefix = "";
  const entries = await fs.readdir(top, { withFileTypes: true }).catch(() => []);
  if (entries.length === 1 && entries[0]!.isDirectory() && entries[0]!.name !== "agents") {
    base = path.join(top, entries[0]!.name);
    prefix = `${entries[0]!.name}/`;
  }
  const agentsFolder = path.join(base, "agents");
  if ((await fs.stat(agentsFolder).catch(() => undefined))?.isDirectory()) {
    base = agentsFolder;
    prefix = `${prefix}agents/`;
  }
  const names = (await fs.readdir(base, { withFileTypes: true })).filter((entry) => entry.isFile() && /\.md$/i.test(entry.name) && !/^readme\.md$/i.test(entry.name)).map((entry) => entry.name).sort();
  if (names.length === 0) throw new ThinktankError("INVALID_AGENT", "the package has no agent files (*.md) at its top or in its agents/ folder");
  return names.map((name) => ({ absolute: path.join(base, name), relative: `${prefix}${name}` }));
}

/** Every file read as the loader reads it; one unusable file (or two of the same name) refuses them all. */
function readAll(files: readonly Candidate[]): { agent: ParsedAgent; absolute: string; warnings: AgentProblem[] }[] {
  const problems: { problem: AgentProblem; code: AgentRefusalCode }[] = [];
  const agents: { agent: ParsedAgent; absolute: string; warnings: AgentProblem[] }[] = [];
  for (const file of files) {
    const read = readAgentFile(file.absolute, file.relative);
    if (!read.ok) {
      problems.push({ problem: read.problem, code: read.code });
      continue;
    }
    const written = read.agent.frontmatter.name;
    if (typeof written === "string" && written.trim() !== "" && !isUsableName(written.trim())) {
      problems.push({ code: "INVALID_AGENT", problem: { severity: "error", file: file.relative, message: `its name ${JSON.stringify(written)} is not a usable agent name (letters, digits, '.', '_' and '-', nothing hidden or look-alike)` } });
      continue;
    }
    if (agents.some((other) => other.agent.name === read.agent.name)) {
      problems.push({ code: "INVALID_AGENT", problem: { severity: "error", file: file.relative, message: `a second agent named '${read.agent.name}' in the package` } });
      continue;
    }
    agents.push({ agent: read.agent, absolute: file.absolute, warnings: read.warnings });
  }
  if (problems.length > 0) {
    const codes = new Set(problems.map((entry) => entry.code));
    const code = codes.size === 1 ? [...codes][0]! : "INVALID_AGENT";
    const reasons = problems.map(({ problem }) => `${problem.file}${problem.line ? `:${problem.line}` : ""}: ${problem.message}`);
    throw new ThinktankError(code, `not installed: ${reasons.join("; ")}`, { details: { problems: problems.map((entry) => entry.problem) } });
  }
  return agents;
}

async function removeStaleStaging(root: string, now: number, maxAgeMs = 3_600_000): Promise<void> {
  for (const entry of await fs.readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(stagingPrefix)) continue;
    const folder = path.join(root, entry.name);
    const stat = await fs.stat(folder).catch(() => undefined);
    if (stat && now - stat.mtimeMs > maxAgeMs) await fs.rm(folder, { recursive: true, force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
