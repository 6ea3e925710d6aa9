import fs from "node:fs";
import path from "node:path";
import { ThinktankError, type ExtensionsStore } from "@thinktank/core";
import { assertPluginValid, loadPlugin } from "../load-plugin.js";
import type { LoadedPlugin } from "../plugin-types.js";
import { installedPluginsDir, previousPluginsDir, stagingDir } from "./plugin-paths.js";

type Entry = { enabled: boolean; installed_from?: unknown; rollback?: { installed_from?: unknown }; [key: string]: unknown };
type Draft = { plugins: Record<string, Entry> };

/**
 * Keeps the version an update replaced (moved aside by placePlugin) as `<pluginsDir>/previous/<name>`,
 * replacing the one kept before, under the store's lock. Called after the update is in place: when
 * it fails the update stands and only the rollback is lost (rollbackPlugin then answers CONFLICT).
 */
export async function keepPreviousVersion(store: Pick<ExtensionsStore, "update">, pluginsDir: string, name: string, aside: string): Promise<void> {
  const kept = path.join(previousPluginsDir(pluginsDir), name);
  await fs.promises.mkdir(previousPluginsDir(pluginsDir), { recursive: true });
  const trash = await fs.promises.mkdtemp(path.join(stagingDir(pluginsDir), "kept-"));
  try {
    await store.update(async () => {
      if (fs.existsSync(kept)) await fs.promises.rename(kept, path.join(trash, "older"));
      await fs.promises.rename(aside, kept);
    });
  } finally {
    await fs.promises.rm(trash, { recursive: true, force: true });
  }
}

/**
 * Swaps an installed plugin with the version its last update replaced, in one step under the
 * store's lock: the kept version takes `installed/<name>` and the current one is kept in its
 * place, so a second rollback undoes the first. The store's `installed_from` (what an update
 * fetches next) is swapped with `rollback.installed_from`; enablement, trust and approvals stay.
 * CONFLICT when nothing is kept (the plugin was never updated here); the kept copy is validated
 * first, and anything that fails puts both folders back.
 */
export async function rollbackPlugin(store: Pick<ExtensionsStore, "update">, pluginsDir: string, name: string): Promise<{ plugin: LoadedPlugin; revision: number }> {
  const installed = path.join(installedPluginsDir(pluginsDir), name);
  const kept = path.join(previousPluginsDir(pluginsDir), name);
  const trash = await fs.promises.mkdtemp(path.join(stagingDir(pluginsDir), "rollback-"));
  const current = path.join(trash, "current");
  try {
    let moved = 0;
    const { snapshot } = await store
      .update(async (draft: Draft) => {
        const entry = draft.plugins[name];
        if (!fs.existsSync(installed) || !entry) throw new ThinktankError("PLUGIN_NOT_FOUND", `no plugin named '${name}' is installed`, { details: { name } });
        if (!entry.rollback || !fs.existsSync(kept)) throw new ThinktankError("CONFLICT", `plugin '${name}' has no earlier version to roll back to: one is kept after an update`, { details: { name } });
        const earlier = loadPlugin(kept, { fallbackName: name });
        assertPluginValid(earlier);
        if (earlier.name !== name) throw new ThinktankError("INVALID_PLUGIN", `the kept version names the plugin '${earlier.name}', not '${name}'`, { details: { name } });
        await fs.promises.rename(installed, current);
        moved = 1;
        await fs.promises.rename(kept, installed);
        moved = 2;
        await fs.promises.rename(current, kept);
        moved = 3;
        const { rollback, installed_from: installedFrom, ...rest } = entry;
        const back = rollback.installed_from;
        draft.plugins[name] = { ...rest, ...(back ? { installed_from: back } : {}), rollback: { installed_from: installedFrom ?? null } };
      })
      .catch(async (error: unknown) => {
        // Undo the renames done, newest first: the store kept the old entry.
        if (moved >= 3) await fs.promises.rename(kept, current);
        if (moved >= 2) await fs.promises.rename(installed, kept);
        if (moved >= 1) await fs.promises.rename(current, installed);
        throw error;
      });
    return { plugin: loadPlugin(installed, { fallbackName: name }), revision: snapshot.revision };
  } finally {
    await fs.promises.rm(trash, { recursive: true, force: true });
  }
}

/** The version a rollback would restore (its manifest's), or undefined when none is kept. */
export function keptVersion(pluginsDir: string, name: string): { version?: string } | undefined {
  const kept = path.join(previousPluginsDir(pluginsDir), name);
  if (!fs.existsSync(kept)) return undefined;
  const version = loadPlugin(kept, { fallbackName: name }).manifest.version;
  return typeof version === "string" ? { version } : {};
}

/** Deletes the kept version of a plugin (after an uninstall). */
export async function forgetPreviousVersion(pluginsDir: string, name: string): Promise<void> {
  await fs.promises.rm(path.join(previousPluginsDir(pluginsDir), name), { recursive: true, force: true });
}
