import type { Config, ExtensionsSnapshot, ExtensionsStore } from "@thinktank/core";

/** What applies to one user's runs. */
export interface MemorySettings {
  /** The memory tool and the `<memory>` digest in their runs. */
  readonly enabled: boolean;
  /** Automatic memory after their runs (never without `enabled`). */
  readonly auto: boolean;
}

/** What a user chose (PUT /api/memory/settings): either or both. */
export interface MemorySettingsChoice {
  readonly enabled?: boolean;
  readonly auto?: boolean;
}

/** extensions_config.json as a snapshot holds it. */
type Document = ExtensionsSnapshot["document"];

/**
 * The switches that apply to `userId` (the agent reads them from its per-run snapshot of
 * extensions_config.json, the gateway after each change): the server's `memory.enabled: false` is
 * off for everyone; else the user's own `users.<id>.memory.enabled` (on unless they said false).
 * `auto` needs `enabled`, then is the user's `users.<id>.memory.auto`, else the server's `memory.auto`.
 */
export function memorySettingsFor(config: Pick<Config, "memory">, document: Document, userId: string): MemorySettings {
  const chosen = chosenMemorySettings(document, userId);
  const enabled = config.memory.enabled && chosen.enabled !== false;
  return { enabled, auto: enabled && (chosen.auto ?? config.memory.auto) };
}

/** What `userId` chose, as written (absent keys: no choice). */
export function chosenMemorySettings(document: Document, userId: string): MemorySettingsChoice {
  const users = document.users as Record<string, { memory?: unknown } | undefined> | undefined;
  const entry = users && Object.hasOwn(users, userId) ? users[userId]?.memory : undefined;
  if (!entry || typeof entry !== "object") return {};
  const { enabled, auto } = entry as Record<string, unknown>;
  return { ...(typeof enabled === "boolean" ? { enabled } : {}), ...(typeof auto === "boolean" ? { auto } : {}) };
}

/**
 * Writes a user's choice into `users.<id>.memory` of extensions_config.json through the store's
 * write queue and lock (the gateway is its only writer; the CLI writes through the same store).
 * Answers the document as written.
 */
export async function setMemorySettings(store: ExtensionsStore, userId: string, choice: MemorySettingsChoice): Promise<Document> {
  const { snapshot } = await store.update((draft) => {
    draft.users ??= {};
    const user = (Object.hasOwn(draft.users, userId) ? draft.users[userId] : undefined) ?? {};
    const memory = { ...(user.memory && typeof user.memory === "object" ? user.memory : {}) };
    if (choice.enabled !== undefined) memory.enabled = choice.enabled;
    if (choice.auto !== undefined) memory.auto = choice.auto;
    draft.users[userId] = { ...user, memory };
  });
  return snapshot.document;
}
