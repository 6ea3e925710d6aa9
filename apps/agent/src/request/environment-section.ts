/**
 * The end of every system prompt: the virtual folders and today's date. The date only (no time),
 * so the prompt stays byte-identical, and cacheable by the provider, for a whole day.
 */
export function environmentSection(now: Date): string {
  return [
    "Working directory: /mnt/user-data/workspace (uploads in /mnt/user-data/uploads, results go to /mnt/user-data/outputs).",
    `Current date: ${now.toISOString().slice(0, 10)}.`,
  ].join("\n");
}
