import crypto from "node:crypto";
import { ThinktankError } from "@thinktank/core";
import type { JsonObject } from "../persistence/agent-records.js";
import { containsAll } from "../persistence/metadata-store.js";
import { isUuid } from "../persistence/is-uuid.js";
import { reaches, type Access } from "../owners/access.js";
import type { Assistant, AssistantSearch, AssistantVersionRecord, StoredAssistant } from "./assistant-records.js";
import { invalidAssistant, readAssistantSettings, settingFields, type AssistantSettings } from "./assistant-settings.js";
import type { SqlAssistantStore } from "./sql-assistant-store.js";

/** Checks settings against what the caller has (models, skills, sub-agents, servers); throws INVALID_ASSISTANT. */
export type AssistantSettingsCheck = (settings: AssistantSettings, fieldOf: (key: keyof AssistantSettings) => string, access: Access) => Promise<void> | void;

export interface AssistantServiceOptions {
  readonly store: SqlAssistantStore;
  /** The graph's own assistant (lead_agent's): everyone's, read-only, never deleted; found by its id or its graph id. */
  readonly builtIn: Assistant;
  readonly clock: () => Date;
  /** Assistants one owner may keep (assistants.max_per_owner). @default 100 */
  readonly maxPerOwner?: number;
  /** The catalog checks of a new or changed assistant's settings. @default none (shape checks only) */
  readonly checkSettings?: AssistantSettingsCheck;
}

/** POST /assistants as the SDK sends it. */
export interface AssistantCreate {
  readonly assistant_id?: string;
  readonly graph_id?: string;
  readonly config?: unknown;
  readonly context?: unknown;
  readonly metadata?: JsonObject;
  readonly if_exists?: "raise" | "do_nothing";
  readonly name?: string;
  readonly description?: string | null;
}

/** PATCH /assistants/:id: what is given replaces the current version's (metadata is merged into it). */
export type AssistantUpdate = Omit<AssistantCreate, "assistant_id" | "if_exists">;

/** Which version of which assistant a run uses (RunManager's resolveAssistant). */
export interface AssistantChoice {
  readonly assistant_id: string;
  readonly version: number;
}

const maxNameChars = 200;
const maxDescriptionChars = 2_000;
const maxMetadataBytes = 64 * 1024;

/**
 * Assistants as the LangGraph API has them (packages/runs/README.md, "Assistants"): configured
 * variants of a graph, versioned, owned as threads are. The built-in one answers beside the stored
 * ones and cannot be changed; another owner's assistant answers as a missing one.
 */
export class AssistantService {
  readonly #options: AssistantServiceOptions;
  readonly #store: SqlAssistantStore;

  constructor(options: AssistantServiceOptions) {
    this.#options = options;
    this.#store = options.store;
  }

  get builtIn(): Assistant {
    return this.#options.builtIn;
  }

  /** Whether `id` names the built-in assistant (its id or its graph id). */
  isBuiltIn(id: string): boolean {
    return id === this.builtIn.assistant_id || id === this.builtIn.graph_id;
  }

  async create(body: AssistantCreate, access: Access): Promise<Assistant> {
    const graphId = body.graph_id;
    if (graphId !== this.builtIn.graph_id) throw invalidAssistant("graph_id", `no graph '${String(graphId)}': this server serves graph ${this.builtIn.graph_id}`);
    const assistantId = body.assistant_id ?? crypto.randomUUID();
    if (body.assistant_id !== undefined && !this.isBuiltIn(assistantId) && !isUuid(assistantId)) throw invalidAssistant("assistant_id", "must be a UUID");
    const existing = this.isBuiltIn(assistantId) ? this.builtIn : await this.#store.get(assistantId);
    if (existing) {
      const mine = existing === this.builtIn || reaches(access, (existing as StoredAssistant).owner_id);
      if (body.if_exists === "do_nothing" && mine) return answer(existing);
      throw new ThinktankError("CONFLICT", `assistant ${assistantId} exists`);
    }
    const fields = checkFields(body);
    const settings = readAssistantSettings(body);
    await this.#options.checkSettings?.(settings, settingFields(body), access);
    const maxPerOwner = this.#options.maxPerOwner ?? 100;
    const limitReached = () => new ThinktankError("ASSISTANT_LIMIT_REACHED", `you have ${maxPerOwner} assistants, the most one owner may keep (assistants.max_per_owner): delete one first`);
    // A quick refusal before the settings; the insert checks the limit again, atomically.
    if ((await this.#store.count({ owner: access.owner })) >= maxPerOwner) throw limitReached();
    const now = this.#now();
    const assistant: StoredAssistant = {
      assistant_id: assistantId,
      graph_id: graphId,
      name: fields.name ?? "Untitled",
      description: fields.description ?? null,
      config: (body.config ?? {}) as JsonObject,
      context: (body.context ?? {}) as JsonObject,
      metadata: fields.metadata ?? {},
      version: 1,
      created_at: now,
      updated_at: now,
      owner_id: access.owner,
    };
    const created = await this.#store.create(assistant, maxPerOwner);
    if (created === "limit") throw limitReached();
    if (created === "exists") throw new ThinktankError("CONFLICT", `assistant ${assistantId} exists`);
    return answer(assistant);
  }

  async get(id: string, access: Access): Promise<Assistant> {
    return answer(await this.#reached(id, access));
  }

  /** A new version from the current one and what `body` gives; it becomes current. */
  async update(id: string, body: AssistantUpdate, access: Access): Promise<Assistant> {
    const current = await this.#stored(id, access, "changed");
    if (body.graph_id !== undefined && body.graph_id !== current.graph_id) throw invalidAssistant("graph_id", `no graph '${String(body.graph_id)}': this server serves graph ${this.builtIn.graph_id}`);
    const fields = checkFields(body);
    const next = { config: body.config ?? current.config, context: body.context ?? current.context };
    const settings = readAssistantSettings(next);
    await this.#options.checkSettings?.(settings, settingFields(next), access);
    const metadata = { ...current.metadata, ...fields.metadata };
    if (fields.metadata) checkFields({ metadata });
    const updated = await this.#store.addVersion(
      current.assistant_id,
      {
        graph_id: current.graph_id,
        name: fields.name ?? current.name,
        description: fields.description !== undefined ? fields.description : current.description,
        config: next.config as JsonObject,
        context: next.context as JsonObject,
        metadata,
      },
      this.#now(),
    );
    if (!updated) throw notFound(id);
    return answer(updated);
  }

  async versions(id: string, query: { readonly metadata?: JsonObject; readonly limit: number; readonly offset: number }, access: Access): Promise<AssistantVersionRecord[]> {
    const assistant = await this.#reached(id, access);
    if (assistant === this.builtIn) return containsAll(this.builtIn.metadata, query.metadata) && query.offset === 0 ? [versionOf(this.builtIn)] : [];
    return this.#store.versions(assistant.assistant_id, query);
  }

  /** Picks the version runs use. */
  async setLatest(id: string, version: number, access: Access): Promise<Assistant> {
    const assistant = await this.#reached(id, access);
    if (assistant === this.builtIn) {
      if (version === this.builtIn.version) return this.builtIn;
      throw new ThinktankError("NOT_FOUND", `assistant ${this.builtIn.graph_id} has only version ${this.builtIn.version}`);
    }
    const updated = await this.#store.setLatest(assistant.assistant_id, version, this.#now());
    if (!updated) throw new ThinktankError("NOT_FOUND", `assistant ${id} has no version ${version}`);
    return answer(updated);
  }

  async delete(id: string, access: Access): Promise<void> {
    const assistant = await this.#stored(id, access, "deleted");
    if (!(await this.#store.delete(assistant.assistant_id))) throw notFound(id);
  }

  /** The caller's assistants (everyone's with `everyone`), the built-in one first when it matches; `next` is the next page's offset. */
  async search(query: Omit<AssistantSearch, "owner">, access: Access): Promise<{ assistants: Assistant[]; next?: number }> {
    // The built-in one, then the stored ones, as one list.
    const lead = this.#builtInMatches(query) ? [this.builtIn] : [];
    const fromLead = lead.slice(query.offset, query.offset + query.limit);
    const storedLimit = query.limit - fromLead.length;
    // One more than asked: whether a next page exists.
    const stored = await this.#store.search({ ...query, ...this.#owner(access), offset: Math.max(0, query.offset - lead.length), limit: storedLimit + 1 });
    const page = [...fromLead, ...stored.slice(0, storedLimit).map(answer)];
    const more = stored.length > storedLimit;
    return { assistants: page, ...(more ? { next: query.offset + page.length } : {}) };
  }

  async count(query: Pick<AssistantSearch, "graph_id" | "name" | "metadata">, access: Access): Promise<number> {
    return (this.#builtInMatches(query) ? 1 : 0) + (await this.#store.count({ ...query, ...this.#owner(access) }));
  }

  /** The assistant and version a run of `access`'s picks with `id` (ASSISTANT_NOT_FOUND otherwise). */
  async resolve(id: string, access: Access): Promise<AssistantChoice> {
    const assistant = await this.#reached(id, access);
    return { assistant_id: assistant.assistant_id, version: assistant.version };
  }

  /**
   * What a version of an assistant sets for its runs; the built-in one sets nothing. Read at the
   * run's turn (on any replica): a version deleted since the run was created is ASSISTANT_NOT_FOUND.
   */
  async settingsOf(choice: AssistantChoice): Promise<AssistantSettings> {
    if (this.isBuiltIn(choice.assistant_id)) return {};
    const version = await this.#store.getVersion(choice.assistant_id, choice.version);
    if (!version) throw new ThinktankError("ASSISTANT_NOT_FOUND", `assistant ${choice.assistant_id} (version ${choice.version}) was deleted`);
    return readAssistantSettings(version);
  }

  async #reached(id: string, access: Access): Promise<Assistant> {
    if (this.isBuiltIn(id)) return this.builtIn;
    const stored = isUuid(id) ? await this.#store.get(id) : undefined;
    if (!stored || !reaches(access, stored.owner_id)) throw notFound(id);
    return stored;
  }

  /** A stored assistant the caller reaches, for a change; the built-in one is ASSISTANT_PROTECTED. */
  async #stored(id: string, access: Access, what: string): Promise<StoredAssistant> {
    if (this.isBuiltIn(id)) throw new ThinktankError("ASSISTANT_PROTECTED", `assistant ${this.builtIn.graph_id} is built in and cannot be ${what}: create an assistant of graph ${this.builtIn.graph_id} instead`);
    return (await this.#reached(id, access)) as StoredAssistant;
  }

  #builtInMatches(query: Pick<AssistantSearch, "graph_id" | "name" | "metadata">): boolean {
    const { builtIn } = this;
    return (query.graph_id === undefined || query.graph_id === builtIn.graph_id) && (query.name === undefined || builtIn.name.toLowerCase().includes(query.name.toLowerCase())) && containsAll(builtIn.metadata, query.metadata);
  }

  #owner(access: Access): { owner?: string } {
    return access.everyone ? {} : { owner: access.owner };
  }

  #now(): string {
    return this.#options.clock().toISOString();
  }
}

function notFound(id: string): ThinktankError {
  return new ThinktankError("ASSISTANT_NOT_FOUND", `no assistant ${id}`);
}

/** An assistant as the API answers it: without its owner. */
function answer(assistant: Assistant): Assistant {
  if (!("owner_id" in assistant)) return assistant;
  const { owner_id: _owner, ...rest } = assistant as StoredAssistant;
  return rest;
}

function versionOf(assistant: Assistant): AssistantVersionRecord {
  const { updated_at: _updated, ...rest } = assistant;
  return rest;
}

/** name, description and metadata, checked. */
function checkFields(body: AssistantUpdate): { name?: string; description?: string | null; metadata?: JsonObject } {
  if (body.name !== undefined && (typeof body.name !== "string" || body.name.trim() === "" || body.name.length > maxNameChars)) throw invalidAssistant("name", `must be a non-empty string of at most ${maxNameChars} characters`);
  if (body.description !== undefined && body.description !== null && (typeof body.description !== "string" || body.description.length > maxDescriptionChars)) {
    throw invalidAssistant("description", `must be a string of at most ${maxDescriptionChars} characters`);
  }
  if (body.metadata !== undefined && body.metadata !== null && (typeof body.metadata !== "object" || Array.isArray(body.metadata))) throw invalidAssistant("metadata", "must be an object");
  // Every version keeps its metadata: bounded, as the settings are.
  if (body.metadata !== undefined && body.metadata !== null && Buffer.byteLength(JSON.stringify(body.metadata)) > maxMetadataBytes) throw invalidAssistant("metadata", `is larger than ${maxMetadataBytes / 1024} KB as JSON`);
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.metadata !== undefined && body.metadata !== null ? { metadata: body.metadata } : {}),
  };
}
