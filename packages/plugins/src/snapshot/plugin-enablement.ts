/** The parts of extensions_config.json plugins read. */
export interface PluginSettingsDocument {
  readonly plugins?: Readonly<Record<string, unknown>>;
  readonly mcpServers?: Readonly<Record<string, unknown>>;
}

/**
 * A plugin is enabled unless the store says `{ "enabled": false }` for it: installs write
 * `{ enabled: true }`, and a folder copied into installed/ by hand counts as enabled.
 */
export function isPluginEnabled(document: PluginSettingsDocument, name: string): boolean {
  const entry = document.plugins && Object.hasOwn(document.plugins, name) ? document.plugins[name] : undefined;
  return !(entry && typeof entry === "object" && (entry as { enabled?: unknown }).enabled === false);
}
