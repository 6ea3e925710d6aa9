import path from "node:path";
import { ThinktankError, defaultArchiveLimits } from "@thinktank/core";
import type { ArchiveLimits, Caller } from "@thinktank/core";
import type { SemanticStage } from "@thinktank/search";
import { findSkill } from "./find-skill.js";
import { installSkill } from "./install-skill.js";
import { removeSkillFolder } from "./remove-skill-folder.js";
import type { SkillSearchHit } from "./search/skill-search-index.js";
import type { Skill } from "./skill-types.js";
import type { SkillSettingsReader, SkillsSnapshot, SkillsSnapshotter } from "./skills-snapshotter.js";
import type { SkillPackageSource } from "./unpack-skill-package.js";
import { UserSkillChanges } from "./user-skill-changes.js";
import { UserSkillViews } from "./user-skill-views.js";

/**
 * Who asks (the caller of docs/architecture.md, "Users"): a `user` reads their own view (the
 * administrator's defaults under their overlay, plus their own skills), changes only their
 * overlay and installs into their own folder; an `admin` reads and sets the defaults.
 * Undefined: an anonymous read sees the defaults; the CLI and other callers without a caller
 * act as the operator.
 */
export type SkillViewer = Pick<Caller, "id" | "role"> | undefined;

/** What PUT /api/skills/:name changes: each field given is written to the skill's entry. */
export interface SkillSettingsChange {
  readonly enabled?: boolean;
  readonly trusted?: boolean;
  /** Written as `scripts_approved`. */
  readonly scriptsApproved?: boolean;
}

export interface SkillInstallOptions {
  /** Replace an installed custom skill of the same name. @default false */
  readonly overwrite?: boolean;
  /** Refuse any departure from the Agent Skills spec. @default false */
  readonly strict?: boolean;
  /** Record the skill as trusted (an administrator's decision). @default false: untrusted */
  readonly trusted?: boolean;
  /** Who installs: a user's install goes to their own folder as `user:<name>` and may not be trusted. @default the operator */
  readonly viewer?: SkillViewer;
}

/** The part of the extensions store the skills service writes (the core ExtensionsStore fits). */
export interface SkillSettingsStore extends SkillSettingsReader {
  read(): Promise<{ readonly document: { readonly skills?: Readonly<Record<string, unknown>> }; readonly revision: number; readonly etag: string }>;
  update<T>(
    mutate: (draft: { skills: Record<string, { enabled: boolean; [key: string]: unknown }>; users?: Record<string, UserStateEntry> }) => T | Promise<T>,
    options?: { readonly ifMatch?: string },
  ): Promise<{ readonly snapshot: { readonly revision: number; readonly etag: string } }>;
}

export interface SkillsServiceOptions {
  /** Where lists and lookups come from; `close()` closes it. */
  readonly snapshotter: SkillsSnapshotter;
  readonly store: SkillSettingsStore;
  /** skills/custom: where administrators' installs go and the only place their deletes may touch. */
  readonly customRoot: string;
  /** The skills folder, which holds each user's own folder (`users/<folder>`). @default the folder holding customRoot */
  readonly skillsRoot?: string;
  /** Each user's view. @default UserSkillViews over the snapshotter, the store and skillsRoot */
  readonly views?: UserSkillViews;
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** config.search.embeddings' semantic stage: `search` ranks by keywords and meaning (SkillSearchIndex.searchWithMeaning). @default keywords alone */
  readonly semantic?: SemanticStage;
}

/**
 * What the gateway and the CLI do with skills: list, get, enable or disable (in
 * extensions_config.json, keyed by identity), delete a custom skill, install. Installs and
 * deletes run one at a time; every change bumps the store's revision so the agent's
 * snapshotter re-verifies on its next request.
 */
export class SkillsService {
  private readonly snapshotter: SkillsSnapshotter;
  private readonly store: SkillSettingsStore;
  private readonly customRoot: string;
  private readonly limits: ArchiveLimits;
  private readonly containerPath: string;
  private readonly skillsRoot: string;
  private readonly semantic: SemanticStage | undefined;
  /** Each user's view over the shared snapshot; `close()` closes it. */
  readonly views: UserSkillViews;
  private readonly users: UserSkillChanges;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: SkillsServiceOptions) {
    this.snapshotter = options.snapshotter;
    this.semantic = options.semantic;
    this.store = options.store;
    this.customRoot = path.resolve(options.customRoot);
    this.limits = options.limits ?? defaultArchiveLimits;
    this.containerPath = options.containerPath ?? "/mnt/skills";
    this.skillsRoot = path.resolve(options.skillsRoot ?? path.dirname(this.customRoot));
    this.views = options.views ?? new UserSkillViews({ snapshotter: this.snapshotter, settings: this.store, skillsRoot: this.skillsRoot, containerPath: this.containerPath });
    this.users = new UserSkillChanges({
      store: this.store,
      views: this.views,
      skillsRoot: this.skillsRoot,
      limits: this.limits,
      containerPath: this.containerPath,
      serialize: (task) => this.serialize(task),
    });
  }

  /** Every skill as `viewer` sees it (a user: their overlay and own skills; otherwise the defaults). */
  list(viewer?: SkillViewer): Promise<SkillsSnapshot> {
    return this.views.viewFor(userOf(viewer));
  }

  /** The skills the model may use that best match `query`, best first (see SkillSearchIndex; with `semantic`, by keywords and meaning), in `viewer`'s view. */
  async search(query: string, options: { readonly limit?: number; readonly viewer?: SkillViewer } = {}): Promise<SkillSearchHit[]> {
    const index = (await this.list(options.viewer)).search;
    return this.semantic ? index.searchWithMeaning(query, this.semantic, { limit: options.limit }) : index.search(query, { limit: options.limit });
  }

  /** One skill by identity or name in `viewer`'s view; `category` settles a name used in several categories. */
  async get(name: string, category?: string, viewer?: SkillViewer): Promise<Skill> {
    return findSkill((await this.list(viewer)).skills, name, category);
  }

  /**
   * Writes `enabled`, `trusted` and `scripts_approved` (those given) to `skills["<identity>"]`:
   * the defaults, an administrator's (or the operator's) decision. A `user` viewer changes only
   * `enabled`, in their own overlay (`users["<id>"].skills["<identity>"]`); trust and approval
   * from them are FORBIDDEN. `ifMatch` makes it conditional on the store's ETag. A public skill
   * is always trusted: `trusted: false` for one is FORBIDDEN.
   */
  async updateSettings(name: string, change: SkillSettingsChange, options: { category?: string; ifMatch?: string; viewer?: SkillViewer } = {}): Promise<{ skill: Skill; etag: string }> {
    const user = userOf(options.viewer);
    if (user !== undefined) return this.users.updateSettings(user, name, change, options);
    const skill = await this.get(name, options.category);
    if (skill.category === "public" && change.trusted === false) {
      throw new ThinktankError("FORBIDDEN", `${skill.identity} ships with Thinktank and is always trusted; disable it instead`);
    }
    const { snapshot } = await this.store.update(
      (draft) => {
        draft.skills ??= {};
        const fields = {
          ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
          ...(change.trusted === undefined ? {} : { trusted: change.trusted }),
          ...(change.scriptsApproved === undefined ? {} : { scripts_approved: change.scriptsApproved }),
        };
        draft.skills[skill.identity] = { ...entryOf(draft, skill), ...fields };
      },
      { ifMatch: options.ifMatch },
    );
    const updated = findSkill((await this.snapshotter.snapshot()).skills, skill.identity);
    return { skill: updated, etag: snapshot.etag };
  }

  /**
   * Deletes a custom skill's folder and its setting. Public and plugin skills are FORBIDDEN. A
   * `user` viewer deletes only their own skills (`user:<name>`), and their choice about it.
   */
  remove(name: string, options: { category?: string; viewer?: SkillViewer } = {}): Promise<Skill> {
    const user = userOf(options.viewer);
    if (user !== undefined) return this.users.remove(user, name, options.category);
    return this.serialize(async () => {
      const skill = await this.get(name, options.category);
      if (skill.category === "public") {
        throw new ThinktankError("FORBIDDEN", `${skill.identity} ships with Thinktank and cannot be deleted; disable it instead`);
      }
      if (skill.category !== "custom") {
        throw new ThinktankError("FORBIDDEN", `${skill.identity} belongs to a plugin; disable or uninstall the plugin instead`);
      }
      await removeSkillFolder(this.customRoot, skill);
      await this.store.update((draft) => {
        if (draft.skills) delete draft.skills[skill.identity];
      });
      return skill;
    });
  }

  /**
   * Installs into the custom folder (see installSkill; `strict` refuses spec departures), then
   * records its trust in the store (which bumps the revision): `trusted: true` as asked, and
   * otherwise none, so new code (an overwrite included) is untrusted until an administrator says
   * so; an earlier `scripts_approved` is dropped either way. The skill's warnings include what
   * the install accepted.
   */
  install(source: SkillPackageSource, options: SkillInstallOptions = {}): Promise<Skill> {
    const user = userOf(options.viewer);
    if (user !== undefined) return this.users.install(user, source, options);
    return this.serialize(async () => {
      const installed = await installSkill({
        customRoot: this.customRoot,
        source,
        overwrite: options.overwrite,
        strict: options.strict,
        limits: this.limits,
        containerPath: this.containerPath,
        identityTaken: async (name) => {
          const other = (await this.snapshotter.snapshot()).skills.find((skill) => skill.identity === `custom:${name}`);
          if (other && path.resolve(other.dir) !== path.join(this.customRoot, name)) {
            return `custom:${name} is already defined by ${other.file}; choose another name or delete that skill first`;
          }
          return undefined;
        },
      });
      const identity = installed.identity;
      await this.store.update((draft) => {
        draft.skills ??= {};
        const previous = draft.skills[identity];
        if (!options.trusted && !(previous && typeof previous === "object")) return;
        const { trusted: _trusted, scripts_approved: _approved, ...kept } = previous && typeof previous === "object" ? previous : { enabled: typeof previous === "boolean" ? previous : true };
        draft.skills[identity] = { ...kept, ...(options.trusted ? { trusted: true } : {}) };
      });
      const current = (await this.snapshotter.snapshot()).skills.find((skill) => skill.identity === installed.identity);
      return current ? { ...current, warnings: installed.warnings } : { ...installed, enabled: true, trusted: false, scriptsApproved: false };
    });
  }

  /**
   * Forgets a removed user: deletes their own skills' folder and their choices
   * (`users["<id>"].skills`; other keys of their entry are kept for their owners). Returns whether
   * there was anything to forget.
   */
  forgetUser(userId: string): Promise<boolean> {
    return this.users.forget(userId);
  }

  /** Stops the snapshotter's and the user views' watchers (createSkillsService gives each service its own snapshotter). */
  close(): void {
    this.views.close();
    this.snapshotter.close();
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

export type SkillEntry = { enabled: boolean; [key: string]: unknown };
/** One user's entry in `users`: their overlay in `skills`, other keys kept. */
export type UserStateEntry = { skills?: Record<string, SkillEntry>; [key: string]: unknown };

/** The id whose view applies: a `user`'s; administrators and anonymous callers see the defaults. */
function userOf(viewer: SkillViewer): string | undefined {
  return viewer?.role === "user" ? viewer.id : undefined;
}

/**
 * The skill's own entry to change, or a new one. The store needs `enabled` in every entry: a new
 * one takes what applies now without it (a bare-name setting, else on), so adding trust to a
 * skill never switches it on or off.
 */
function entryOf(draft: { skills: Record<string, SkillEntry> }, skill: Skill): SkillEntry {
  const own = draft.skills[skill.identity];
  if (own && typeof own === "object") return own;
  const bare = draft.skills[skill.name];
  const bareEnabled = bare && typeof bare === "object" ? bare.enabled : typeof bare === "boolean" ? bare : undefined;
  return { enabled: skill.disabledReason === undefined ? skill.enabled : (typeof bareEnabled === "boolean" ? bareEnabled : true) };
}
