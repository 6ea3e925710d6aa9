import fs from "node:fs";
import path from "node:path";
import type { AgentProblem, ParsedAgent } from "./agent-types.js";
import { readAgentFile } from "./read-agent-file.js";

/** An agent read from a folder, with its file's absolute path. */
export interface FolderAgent extends ParsedAgent {
  readonly absolute: string;
}

export interface AgentFolderOptions {
  /** The folder of `*.md` agent files (flat: `custom/<name>.md`). It may not exist yet. */
  readonly root: string;
  /** Watch it with fs.watch; false re-lists it on every refresh. @default true */
  readonly watch?: boolean;
}

interface CachedFile {
  readonly signature: string;
  readonly agent: FolderAgent | undefined;
  readonly problems: readonly AgentProblem[];
}

/**
 * One folder of agent files kept current cheaply: a watcher sets a dirty flag, `refresh` lists
 * the folder (one readdir and an lstat per file) and re-reads only files whose inode, size or
 * time changed, and says whether anything changed. A folder that does not exist costs one failed
 * readdir per refresh until it appears. Two files naming the same agent: the first by file name
 * wins, the other is a warning.
 */
export class AgentFolder {
  readonly root: string;
  private readonly watch: boolean;
  private watcher: fs.FSWatcher | undefined;
  private dirty = true;
  private files = new Map<string, CachedFile>();
  private listing = "";
  private refreshed = false;
  agents: readonly FolderAgent[] = [];
  problems: readonly AgentProblem[] = [];

  constructor(options: AgentFolderOptions) {
    this.root = options.root;
    this.watch = options.watch ?? true;
  }

  /** True when the watcher saw a change since the last refresh, or nothing watches the folder. */
  get isDirty(): boolean {
    return this.dirty || !this.watcher;
  }

  /** Re-lists the folder; true when its agents or problems changed. */
  refresh(): boolean {
    this.dirty = false;
    this.startWatching();
    let names: string[];
    try {
      names = fs
        .readdirSync(this.root, { withFileTypes: true })
        .filter((entry) => /\.md$/i.test(entry.name) && !entry.name.startsWith(".") && (entry.isFile() || entry.isSymbolicLink()))
        .map((entry) => entry.name)
        .sort();
    } catch {
      names = [];
    }
    const next = new Map<string, CachedFile>();
    const signatures: string[] = [];
    for (const name of names) {
      const absolute = path.join(this.root, name);
      let signature: string;
      try {
        const stat = fs.lstatSync(absolute);
        signature = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.isSymbolicLink()}`;
      } catch {
        continue; // removed between readdir and lstat
      }
      const cached = this.files.get(name);
      next.set(name, cached && cached.signature === signature ? cached : readCached(absolute, name, signature));
      signatures.push(`${name}\u0000${signature}`);
    }
    this.files = next;
    const listing = signatures.join("\u0001");
    const first = !this.refreshed;
    this.refreshed = true;
    if (!first && listing === this.listing) return false;
    this.listing = listing;
    this.rebuild();
    return true;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private rebuild(): void {
    const agents: FolderAgent[] = [];
    const problems: AgentProblem[] = [];
    for (const [name, cached] of this.files) {
      problems.push(...cached.problems);
      if (!cached.agent) continue;
      if (agents.some((agent) => agent.name === cached.agent!.name)) {
        problems.push({ severity: "warning", file: name, message: `an agent named '${cached.agent.name}' was already read from another file; this one is ignored` });
        continue;
      }
      agents.push(cached.agent);
    }
    this.agents = Object.freeze(agents);
    this.problems = Object.freeze(problems);
  }

  private startWatching(): void {
    if (!this.watch || this.watcher) return;
    try {
      this.watcher = fs.watch(this.root, { persistent: false }, () => {
        this.dirty = true;
      });
      this.watcher.on("error", () => {
        this.close();
        this.dirty = true;
      });
    } catch {
      this.watcher = undefined; // not there yet: listed on every refresh until it is
    }
  }
}

function readCached(absolute: string, name: string, signature: string): CachedFile {
  const read = readAgentFile(absolute, name);
  if (!read.ok) return { signature, agent: undefined, problems: [read.problem] };
  return { signature, agent: Object.freeze({ ...read.agent, absolute }), problems: read.warnings };
}
