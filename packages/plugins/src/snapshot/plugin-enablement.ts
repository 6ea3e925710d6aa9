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

/** What an administrator decided about a plugin's code (extensions_config.json `plugins.<name>`). */
export interface PluginTrust {
  /** `trusted: true`: its skills' script tools run as trusted code. @default false */
  readonly trusted: boolean;
  /** `scripts_approved: true`: its skills' script tools run without asking first. @default false */
  readonly scriptsApproved: boolean;
}

/** A plugin is untrusted and its scripts unapproved unless its entry says `true` for each. */
export function pluginTrust(document: PluginSettingsDocument, name: string): PluginTrust {
  const entry = document.plugins && Object.hasOwn(document.plugins, name) ? document.plugins[name] : undefined;
  const field = (key: string): boolean => !!entry && typeof entry === "object" && (entry as Record<string, unknown>)[key] === true;
  return { trusted: field("trusted"), scriptsApproved: field("scripts_approved") };
}
