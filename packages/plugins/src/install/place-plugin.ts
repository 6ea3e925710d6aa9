import fs from "node:fs";
import { ThinktankError, type ExtensionsStore } from "@thinktank/core";

type Entry = { enabled: boolean; [key: string]: unknown };
type Draft = { plugins: Record<string, Entry>; skills?: Record<string, Entry> };

/**
 * Moves a staged plugin folder into `target` (installed/<name>) while the store records it,
 * in one step under the store's cross-process lock: `record` merges into the plugin's entry.
 * A new install refuses a name already there (PLUGIN_NAME_CONFLICT). A replacement (an update)
 * renames the installed folder to `aside` first and the staged one in after it, so the old
 * version stays whole until the new one takes its place; if anything fails (the rename, the
 * store write) the old version is put back and the staged one taken back out. A new install
 * starts untrusted: any `trusted` and `scripts_approved` left from an earlier plugin of that
 * name (its entry, its skills' `plugin:<name>:...` entries) are dropped before `record` merges.
 * A replacement records the replaced version's `installed_from` as `rollback.installed_from`.
 */
export async function placePlugin(
  store: Pick<ExtensionsStore, "update">,
  how: { readonly staged: string; readonly target: string; readonly name: string; readonly record: Readonly<Record<string, unknown>>; readonly replace?: { readonly aside: string } },
): Promise<void> {
  const { staged, target, name, record, replace } = how;
  await store
    .update(async (draft: Draft) => {
      if (replace) {
        if (!fs.existsSync(target)) throw new ThinktankError("PLUGIN_NOT_FOUND", `no plugin named '${name}' is installed`, { details: { name } });
        await fs.promises.rename(target, replace.aside);
      } else if (fs.existsSync(target)) throw conflict(name);
      try {
        await fs.promises.rename(staged, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (!replace && (code === "ENOTEMPTY" || code === "EEXIST")) throw conflict(name);
        throw error;
      }
      if (!replace) forgetTrust(draft, name);
      // An update remembers where the version it replaces came from, for a rollback (plugin-rollback.ts); a new install has none.
      const { rollback: _rollback, ...entry } = draft.plugins[name] ?? { enabled: true };
      const rollback = replace ? { rollback: { installed_from: draft.plugins[name]?.installed_from ?? null } } : {};
      draft.plugins[name] = { ...entry, enabled: draft.plugins[name]?.enabled ?? true, ...record, ...rollback, ...(replace ? {} : { enabled: true }) };
    })
    .catch(async (error: unknown) => {
      const isConflict = error instanceof ThinktankError && error.code === "PLUGIN_NAME_CONFLICT";
      // The store refused the write after the rename: take the new folder back out, put the old one back.
      if (!isConflict && fs.existsSync(target) && !fs.existsSync(staged)) {
        await fs.promises.rename(target, staged).catch(() => fs.promises.rm(target, { recursive: true, force: true }));
      }
      if (replace && fs.existsSync(replace.aside) && !fs.existsSync(target)) await fs.promises.rename(replace.aside, target);
      throw error;
    });
}

export function conflict(name: string): ThinktankError {
  return new ThinktankError("PLUGIN_NAME_CONFLICT", `a plugin named '${name}' is already installed; uninstall it first`, { details: { name } });
}

/** Drops `trusted` and `scripts_approved` from the plugin's entry and from its skills' entries. */
function forgetTrust(draft: Draft, name: string): void {
  const forget = (entry: Entry | undefined): Entry | undefined => {
    if (!entry || typeof entry !== "object") return entry;
    const { trusted: _trusted, scripts_approved: _approved, ...kept } = entry;
    return kept as Entry;
  };
  const plugin = forget(draft.plugins[name]);
  if (plugin) draft.plugins[name] = plugin;
  for (const key of Object.keys(draft.skills ?? {})) {
    if (draft.skills && key.startsWith(`plugin:${name}:`)) draft.skills[key] = forget(draft.skills[key])!;
  }
}
