import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError, defaultArchiveLimits } from "@thinktank/core";
import type { ArchiveLimits } from "@thinktank/core";
import { findSkill } from "./find-skill.js";
import { installSkill } from "./install-skill.js";
import type { SkillSearchHit } from "./search/skill-search-index.js";
import type { Skill } from "./skill-types.js";
import type { SkillSettingsReader, SkillsSnapshot, SkillsSnapshotter } from "./skills-snapshotter.js";
import type { SkillPackageSource } from "./unpack-skill-package.js";

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
}

/** The part of the extensions store the skills service writes (the core ExtensionsStore fits). */
export interface SkillSettingsStore extends SkillSettingsReader {
  read(): Promise<{ readonly document: { readonly skills?: Readonly<Record<string, unknown>> }; readonly revision: number; readonly etag: string }>;
  update<T>(
    mutate: (draft: { skills: Record<string, { enabled: boolean; [key: string]: unknown }> }) => T | Promise<T>,
    options?: { readonly ifMatch?: string },
  ): Promise<{ readonly snapshot: { readonly revision: number; readonly etag: string } }>;
}

export interface SkillsServiceOptions {
  /** Where lists and lookups come from; `close()` closes it. */
  readonly snapshotter: SkillsSnapshotter;
  readonly store: SkillSettingsStore;
  /** skills/custom: where installs go and the only place deletes may touch. */
  readonly customRoot: string;
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
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
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: SkillsServiceOptions) {
    this.snapshotter = options.snapshotter;
    this.store = options.store;
    this.customRoot = path.resolve(options.customRoot);
    this.limits = options.limits ?? defaultArchiveLimits;
    this.containerPath = options.containerPath ?? "/mnt/skills";
  }

  list(): Promise<SkillsSnapshot> {
    return this.snapshotter.snapshot();
  }

  /** The skills the model may use that best match `query`, best first (see SkillSearchIndex). */
  async search(query: string, options: { readonly limit?: number } = {}): Promise<SkillSearchHit[]> {
    return (await this.snapshotter.snapshot()).search.search(query, options);
  }

  /** One skill by identity or name; `category` settles a name used in several categories. */
  async get(name: string, category?: string): Promise<Skill> {
    return findSkill((await this.snapshotter.snapshot()).skills, name, category);
  }

  /**
   * Writes `enabled`, `trusted` and `scripts_approved` (those given) to `skills["<identity>"]`;
   * `ifMatch` makes it conditional on the store's ETag. A public skill is always trusted:
   * `trusted: false` for one is FORBIDDEN.
   */
  async updateSettings(name: string, change: SkillSettingsChange, options: { category?: string; ifMatch?: string } = {}): Promise<{ skill: Skill; etag: string }> {
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

  /** Deletes a custom skill's folder and its setting. Public and plugin skills are FORBIDDEN. */
  remove(name: string, options: { category?: string } = {}): Promise<Skill> {
    return this.serialize(async () => {
      const skill = await this.get(name, options.category);
      if (skill.category === "public") {
        throw new ThinktankError("FORBIDDEN", `${skill.identity} ships with Thinktank and cannot be deleted; disable it instead`);
      }
      if (skill.category !== "custom") {
        throw new ThinktankError("FORBIDDEN", `${skill.identity} belongs to a plugin; disable or uninstall the plugin instead`);
      }
      const relative = path.relative(this.customRoot, skill.dir);
      if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) {
        throw new ThinktankError("FORBIDDEN", `${skill.identity} is not inside ${this.customRoot}`);
      }
      // Rename first: the skill disappears at once and whole, then the files go.
      const doomed = await fs.mkdtemp(path.join(this.customRoot, ".staging-delete-"));
      try {
        await fs.rename(skill.dir, path.join(doomed, "skill"));
      } finally {
        fsSync.rmSync(doomed, { recursive: true, force: true });
      }
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

  /** Stops the snapshotter's watchers (createSkillsService gives each service its own snapshotter). */
  close(): void {
    this.snapshotter.close();
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

type SkillEntry = { enabled: boolean; [key: string]: unknown };

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
