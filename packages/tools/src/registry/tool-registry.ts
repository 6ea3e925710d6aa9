import { redactedMarker, ThinktankError } from "@thinktank/core";
import type { ExtensionsSnapshot, ExtensionsStore } from "@thinktank/core";
import { checkDefinition } from "./check-definition.js";
import { SchemaCompiler } from "./schema-compiler.js";
import { checkScriptSource, defaultMaxScriptBytes, ScriptFiles } from "./script-files.js";
import type { RunnableTool, ToolDefinition, ToolProblem, ToolRuntime } from "./tool-definition.js";
import { builtinToolNames, checkToolName } from "./tool-names.js";
import { toDefinition } from "./to-definition.js";

export interface ToolRegistryOptions {
  /** extensions_config.json; the registry lives in its `tools` section. */
  readonly store: ExtensionsStore;
  /** config.tools.scripts_dir: where scripts are stored. */
  readonly scriptsDir: string;
  /** config.tools.default_timeout_seconds: the timeout of a tool that names none. @default 30 */
  readonly defaultTimeoutSeconds?: number;
  /** Compiles and caches the tools' JSON Schemas. @default new SchemaCompiler() */
  readonly compiler?: SchemaCompiler;
  /** Names a tool may not take (any letter case). @default builtinToolNames */
  readonly reservedNames?: readonly string[];
  /** Largest script accepted, in bytes. @default 1 MiB */
  readonly maxScriptBytes?: number;
  /** Clock of created_at / updated_at. @default () => new Date() */
  readonly now?: () => Date;
  /** Script file storage. @default new ScriptFiles(scriptsDir) */
  readonly scripts?: ScriptFiles;
}

/** A definition and its script as a request brings them. */
export interface ToolUpload {
  /** The JSON definition: with `script` (source text) inline, or without it when `file` carries the script. */
  readonly definition: unknown;
  /** The script sent apart from the definition (the multipart field `file`). */
  readonly file?: { readonly content: Buffer; readonly fileName?: string };
}

/** The registry as of one revision of extensions_config.json. */
export interface RegistryView {
  readonly revision: number;
  readonly etag: string;
  /** The valid entries by name, sorted by name. */
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /** Entries left out, and why (a hand edit the registry refuses). */
  readonly problems: readonly ToolProblem[];
}

/**
 * The registered script tools: the `tools` section of extensions_config.json plus the scripts
 * folder. Reads are a snapshot of the store (one `stat` while nothing changed) and see every
 * change on the next call; writes go through the store's serialized, cross-process-locked queue.
 * A new script is written under a new file name first, then the entry points at it, then the old
 * script is removed: a failed write removes the new file and leaves the registry as it was.
 */
export class ToolRegistry {
  readonly scripts: ScriptFiles;
  readonly compiler: SchemaCompiler;
  private readonly defaultTimeoutSeconds: number;
  private readonly reservedNames: readonly string[];
  private readonly maxScriptBytes: number;
  private readonly now: () => Date;
  private cached: { snapshot: ExtensionsSnapshot; view: RegistryView } | undefined;

  constructor(private readonly options: ToolRegistryOptions) {
    this.scripts = options.scripts ?? new ScriptFiles(options.scriptsDir);
    this.compiler = options.compiler ?? new SchemaCompiler();
    this.defaultTimeoutSeconds = options.defaultTimeoutSeconds ?? 30;
    this.reservedNames = options.reservedNames ?? builtinToolNames;
    this.maxScriptBytes = options.maxScriptBytes ?? defaultMaxScriptBytes;
    this.now = options.now ?? (() => new Date());
  }

  /** The registry now; built once per revision of the file. */
  async view(): Promise<RegistryView> {
    const snapshot = await this.options.store.read();
    if (this.cached?.snapshot === snapshot) return this.cached.view;
    const tools = new Map<string, ToolDefinition>();
    const problems: ToolProblem[] = [];
    for (const [name, entry] of Object.entries(snapshot.document.tools).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const found = [
        ...checkToolName(name, this.reservedNames).map((problem) => ({ path: `tools.${name}`, message: problem.message })),
        ...checkDefinition(this.compiler, entry, "entry", { base: `tools.${name}` }),
      ];
      if (entry && typeof entry === "object" && "name" in entry && entry.name !== undefined && entry.name !== name) {
        found.push({ path: `tools.${name}.name`, message: `must be '${name}' (the entry's key) when given` });
      }
      if (found.length > 0) problems.push(...found);
      else tools.set(name, toDefinition(name, entry as Record<string, unknown>, this.defaultTimeoutSeconds));
    }
    const view: RegistryView = { revision: snapshot.revision, etag: snapshot.etag, tools, problems };
    this.cached = { snapshot, view };
    return view;
  }

  /**
   * Start-up check: throws CONFIG_INVALID naming every bad entry (with the path of the bad field)
   * when the registry is malformed; STORE_CORRUPT / CONFIG_INVALID from the store pass through.
   */
  async check(): Promise<RegistryView> {
    const view = await this.view();
    if (view.problems.length === 0) return view;
    const summary = view.problems.map((p) => `${p.path}: ${p.message}`).join("; ");
    throw new ThinktankError("CONFIG_INVALID", `${this.options.store.file}: the tools registry is malformed: ${summary}. Fix these entries by hand; nothing starts until then.`, {
      details: { file: this.options.store.file, problems: view.problems },
    });
  }

  async list(): Promise<ToolDefinition[]> {
    return [...(await this.view()).tools.values()];
  }

  /** One tool; TOOL_NOT_FOUND when there is none. */
  async get(name: string): Promise<ToolDefinition> {
    const tool = (await this.view()).tools.get(name);
    if (!tool) throw notFound(name);
    return tool;
  }

  /** A tool with its script's path (enabled or not), or undefined. */
  async runnable(name: string): Promise<RunnableTool | undefined> {
    const tool = (await this.view()).tools.get(name);
    // Registered by a key holder: always trusted (docs/architecture.md, "Trust by origin").
    return tool ? { ...tool, scriptPath: this.scripts.pathOf(tool.script), trusted: true } : undefined;
  }

  /** Registers a new tool. VALIDATION_FAILED (with the bad fields' paths), TOOL_NAME_CONFLICT. */
  async register(upload: ToolUpload): Promise<ToolDefinition> {
    const shape = upload.file ? "create-field" : "create";
    const problems = checkDefinition(this.compiler, upload.definition, shape, { reservedNames: this.reservedNames });
    const source = this.scriptSource(upload, problems);
    if (problems.length > 0) throw invalid("the tool definition is not valid", problems);
    const definition = upload.definition as Record<string, unknown>;
    const name = definition.name as string;
    const fileName = await this.scripts.write(name, definition.runtime as ToolRuntime, source as Buffer, upload.file?.fileName);
    const stamp = this.now().toISOString();
    const entry: Record<string, unknown> = { ...withoutKeys(definition, ["name", "script"]), script: fileName, created_at: stamp, updated_at: stamp };
    try {
      await this.options.store.update((draft) => {
        if (Object.hasOwn(draft.tools, name)) {
          throw new ThinktankError("TOOL_NAME_CONFLICT", `a tool named '${name}' is already registered: change it with PUT /api/tools/${name}, or delete it first`, { details: { name } });
        }
        draft.tools[name] = entry as (typeof draft.tools)[string];
      });
    } catch (error) {
      await this.scripts.remove(fileName);
      throw error;
    }
    return toDefinition(name, entry, this.defaultTimeoutSeconds);
  }

  /**
   * Changes a tool: the fields given replace the current ones, the others stay (the script too,
   * when none is sent). TOOL_NOT_FOUND, VALIDATION_FAILED; an invalid change writes nothing.
   */
  async update(name: string, upload: ToolUpload): Promise<ToolDefinition> {
    const problems = checkDefinition(this.compiler, upload.definition, upload.file ? "update-field" : "update");
    const changes = (upload.definition ?? {}) as Record<string, unknown>;
    if (changes.name !== undefined && changes.name !== name && !problems.some((p) => p.path === "name")) {
      problems.push({ path: "name", message: `tools are not renamed: register '${String(changes.name)}' and delete '${name}' instead` });
    }
    const hasScript = upload.file !== undefined || changes.script !== undefined;
    const source = hasScript ? this.scriptSource(upload, problems) : undefined;
    if (problems.length > 0) throw invalid(`the change to tool '${name}' is not valid`, problems);
    // The entry as written (a malformed hand edit too, so a PUT can repair it); checked again under the lock.
    const current = (await this.options.store.read()).document.tools[name] as { runtime?: unknown } | undefined;
    if (!current) throw notFound(name);
    const runtime = (changes.runtime ?? current.runtime) as ToolRuntime;
    const fileName = source ? await this.scripts.write(name, runtime, source, upload.file?.fileName) : undefined;
    let result: { entry: Record<string, unknown>; oldScript: string; snapshot: ExtensionsSnapshot };
    try {
      const updated = await this.options.store.update((draft) => {
        const before = draft.tools[name] as Record<string, unknown> | undefined;
        if (!before) throw notFound(name);
        const given = withoutKeys(changes, ["name", "script"]);
        if (given.env !== undefined) given.env = keepMaskedValues(given.env, before.env);
        const entry: Record<string, unknown> = { ...before, ...given, ...(fileName ? { script: fileName } : {}), updated_at: this.now().toISOString() };
        delete entry.name;
        const entryProblems = checkDefinition(this.compiler, entry, "entry");
        if (entryProblems.length > 0) throw invalid(`the change to tool '${name}' is not valid`, entryProblems);
        draft.tools[name] = entry as (typeof draft.tools)[string];
        return { entry, oldScript: before.script as string };
      });
      result = { ...updated.result, snapshot: updated.snapshot };
    } catch (error) {
      if (fileName) await this.scripts.remove(fileName);
      throw error;
    }
    if (fileName && result.oldScript !== fileName) await this.removeUnreferenced(result.oldScript, result.snapshot);
    return toDefinition(name, result.entry, this.defaultTimeoutSeconds);
  }

  /** Removes a tool and its script. TOOL_NOT_FOUND when there is none. */
  async remove(name: string): Promise<ToolDefinition> {
    const { result, snapshot } = await this.options.store.update((draft) => {
      const entry = draft.tools[name] as Record<string, unknown> | undefined;
      if (!entry) throw notFound(name);
      delete draft.tools[name];
      return entry;
    });
    if (typeof result.script === "string") await this.removeUnreferenced(result.script, snapshot);
    return toDefinition(name, result, this.defaultTimeoutSeconds);
  }

  /** The script's bytes from the upload, adding a problem when it is missing or unusable. */
  private scriptSource(upload: ToolUpload, problems: ToolProblem[]): Buffer | undefined {
    const definition = (upload.definition ?? {}) as Record<string, unknown>;
    if (upload.file) {
      if (definition.script !== undefined) {
        problems.push({ path: "script", message: "the script came in the field 'file': leave 'script' out of the definition" });
        return undefined;
      }
      const found = checkScriptSource(upload.file.content, "file", this.maxScriptBytes);
      problems.push(...found);
      return found.length === 0 ? upload.file.content : undefined;
    }
    if (typeof definition.script !== "string") return undefined; // the shape check reported it
    const source = Buffer.from(definition.script, "utf8");
    const found = checkScriptSource(source, "script", this.maxScriptBytes);
    problems.push(...found);
    return found.length === 0 ? source : undefined;
  }

  /** Deletes a script no entry of `snapshot` uses any more (hand-edited entries may share one). */
  private async removeUnreferenced(fileName: string, snapshot: ExtensionsSnapshot): Promise<void> {
    const used = Object.values(snapshot.document.tools).some((entry) => (entry as { script?: unknown }).script === fileName);
    if (!used) await this.scripts.remove(fileName);
  }
}

function notFound(name: string): ThinktankError {
  return new ThinktankError("TOOL_NOT_FOUND", `no registered tool named '${name}'`, { details: { name } });
}

function invalid(message: string, problems: readonly ToolProblem[]): ThinktankError {
  return new ThinktankError("VALIDATION_FAILED", `${message}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`, { details: { problems } });
}

function withoutKeys(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
}

/**
 * A changed `env` whose values GET showed masked and the client sent back unchanged: those keep
 * the stored value, so reading a tool, editing its description and writing it back loses no secret.
 */
function keepMaskedValues(env: unknown, stored: unknown): unknown {
  if (env === null || typeof env !== "object" || Array.isArray(env)) return env;
  const current = stored !== null && typeof stored === "object" ? (stored as Record<string, unknown>) : {};
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === redactedMarker && typeof current[key] === "string" ? current[key] : value]));
}
