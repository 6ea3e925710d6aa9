import fsSync from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import type { ArchiveLimits } from "@thinktank/core";
import { findSkill } from "./find-skill.js";
import { installSkill } from "./install-skill.js";
import { removeSkillFolder } from "./remove-skill-folder.js";
import { userSkillsFolder } from "./skill-sources.js";
import type { Skill } from "./skill-types.js";
import type { SkillInstallOptions, SkillSettingsChange, SkillSettingsStore, UserStateEntry } from "./skills-service.js";
import type { SkillPackageSource } from "./unpack-skill-package.js";
import type { UserSkillViews } from "./user-skill-views.js";

export interface UserSkillChangesOptions {
  readonly store: SkillSettingsStore;
  readonly views: UserSkillViews;
  /** The skills folder: each user's own skills live in `users/<folder>` under it. */
  readonly skillsRoot: string;
  readonly limits: ArchiveLimits;
  /** Virtual root the model sees. */
  readonly containerPath: string;
  /** Runs installs and deletes one at a time, in the service's queue. */
  readonly serialize: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * What a user (role `user`) changes about skills, for SkillsService: only their own overlay
 * (`users["<id>"].skills`), their own folder (`user:<name>` skills, archives only, never trusted)
 * and, when they are removed, both. Lookups go through their view, so another user's skill is
 * SKILL_NOT_FOUND exactly as a missing one.
 */
export class UserSkillChanges {
  constructor(private readonly options: UserSkillChangesOptions) {}

  /** A user's `enabled` choice in their overlay; the defaults and other users are untouched. */
  async updateSettings(user: string, name: string, change: SkillSettingsChange, options: { category?: string; ifMatch?: string }): Promise<{ skill: Skill; etag: string }> {
    if (change.trusted !== undefined || change.scriptsApproved !== undefined) {
      throw new ThinktankError("FORBIDDEN", "only an administrator decides trust and script approval; a user may set only enabled");
    }
    const skill = findSkill((await this.options.views.viewFor(user)).skills, name, options.category);
    const { snapshot } = await this.options.store.update(
      (draft) => {
        if (change.enabled === undefined) return;
        draft.users ??= {};
        const entry = ownEntry(draft.users, user);
        const skills = entry.skills && typeof entry.skills === "object" && !Array.isArray(entry.skills) ? entry.skills : {};
        const previous = Object.hasOwn(skills, skill.identity) ? skills[skill.identity] : undefined;
        skills[skill.identity] = { ...(previous && typeof previous === "object" ? previous : {}), enabled: change.enabled };
        entry.skills = skills;
      },
      { ifMatch: options.ifMatch },
    );
    const updated = findSkill((await this.options.views.viewFor(user)).skills, skill.identity);
    return { skill: updated, etag: snapshot.etag };
  }

  /** Deletes one of the user's own skills (`user:<name>`), and their choice about it. */
  remove(user: string, name: string, category: string | undefined): Promise<Skill> {
    return this.options.serialize(async () => {
      const skill = findSkill((await this.options.views.viewFor(user)).skills, name, category);
      if (skill.category !== "user") {
        throw new ThinktankError("FORBIDDEN", `${skill.identity} is shared by everyone; only an administrator may delete it (disable it for yourself instead)`);
      }
      const root = userSkillsFolder(this.options.skillsRoot, user);
      await removeSkillFolder(root, skill);
      await this.options.store.update((draft) => {
        const skills = draft.users && Object.hasOwn(draft.users, user) ? draft.users[user]?.skills : undefined;
        if (skills && typeof skills === "object" && Object.hasOwn(skills, skill.identity)) delete skills[skill.identity];
      });
      return skill;
    });
  }

  /** Installs into the user's own folder as `user:<name>`: an archive only (never a path on this machine), never trusted. */
  install(user: string, source: SkillPackageSource, options: SkillInstallOptions): Promise<Skill> {
    if (options.trusted) return Promise.reject(new ThinktankError("FORBIDDEN", "only an administrator decides trust: install without trusted"));
    if (source.kind !== "archive") return Promise.reject(new ThinktankError("FORBIDDEN", "a user installs skills by uploading an archive; installing from a path on the server is for administrators"));
    return this.options.serialize(async () => {
      const root = userSkillsFolder(this.options.skillsRoot, user);
      const installed = await installSkill({
        customRoot: root,
        category: "user",
        source,
        overwrite: options.overwrite,
        strict: options.strict,
        limits: this.options.limits,
        containerPath: this.options.containerPath,
        identityTaken: async (name) => {
          const other = (await this.options.views.viewFor(user)).skills.find((skill) => skill.identity === `user:${name}`);
          if (other && path.resolve(other.dir) !== path.join(root, name)) {
            return `user:${name} is already defined by another of your skills; choose another name or delete that skill first`;
          }
          return undefined;
        },
      });
      // The revision bump makes every reader re-list the user's folder.
      await this.options.store.update(() => undefined);
      const current = (await this.options.views.viewFor(user)).skills.find((skill) => skill.identity === installed.identity);
      return current ? { ...current, warnings: installed.warnings } : { ...installed, enabled: true, trusted: false, scriptsApproved: false };
    });
  }

  /**
   * Forgets a removed user: deletes their own skills' folder and their choices
   * (`users["<id>"].skills`; other keys of their entry are kept for their owners). Returns whether
   * there was anything to forget.
   */
  forget(userId: string): Promise<boolean> {
    return this.options.serialize(async () => {
      const folder = userSkillsFolder(this.options.skillsRoot, userId);
      let removed = false;
      if (fsSync.existsSync(folder)) {
        fsSync.rmSync(folder, { recursive: true, force: true });
        removed = true;
      }
      await this.options.store.update((draft) => {
        const entry = draft.users && Object.hasOwn(draft.users, userId) ? draft.users[userId] : undefined;
        if (entry && typeof entry === "object" && Object.hasOwn(entry, "skills")) {
          delete entry.skills;
          removed = true;
          if (Object.keys(entry).length === 0 && draft.users) delete draft.users[userId];
        }
      });
      return removed;
    });
  }
}

/** The user's entry in `users` (made when missing; other keys of it are kept). */
function ownEntry(users: Record<string, UserStateEntry>, user: string): UserStateEntry {
  const existing = Object.hasOwn(users, user) ? users[user] : undefined;
  if (existing && typeof existing === "object" && !Array.isArray(existing)) return existing;
  const created: UserStateEntry = {};
  users[user] = created;
  return created;
}
