import path from "node:path";
import { ExtensionsStore, isThinktankError } from "@thinktank/core";
import { defaultSkillSources } from "../skill-sources.js";
import { SkillsService } from "../skills-service.js";
import { SkillsSnapshotter } from "../skills-snapshotter.js";

/** A SkillsService over `<dir>/skills` (public and custom) and `<dir>/extensions_config.json`, as the gateway builds one. */
export function openSkillsService(dir: string): { store: ExtensionsStore; snapshotter: SkillsSnapshotter; service: SkillsService } {
  const store = new ExtensionsStore(path.join(dir, "extensions_config.json"));
  const snapshotter = new SkillsSnapshotter({ sources: defaultSkillSources(path.join(dir, "skills")), settings: store });
  const service = new SkillsService({ snapshotter, store, customRoot: path.join(dir, "skills/custom") });
  return { store, snapshotter, service };
}

/** The ThinktankError code a call is refused with, or "ok" when it succeeds (any other error is rethrown). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isThinktankError(error)) return error.code;
    throw error;
  }
  return "ok";
}
