// The gateway routes behind the skills, plugins and marketplaces pages, typed as they answer
// (docs/console.md, "Skills and plugins"). Every name, description and version in them is untrusted.
import { api } from "./api-client.js";

/** Tokens (o200k) in each listing mode: the full listing names every entry; the compact one a group count, and each skill's line on the messages it is offered with. */
export interface ListingCost {
  readonly full: { readonly tokens: number; readonly skills: number; readonly commands: number; readonly agents: number };
  readonly compact: { readonly tokens: number; readonly offered_tokens: number };
}

export interface ScriptToolView {
  readonly skill: string;
  readonly name: string;
  readonly runtime: string;
  readonly script: string;
  readonly network: readonly string[];
  readonly env: readonly string[];
  readonly trusted: boolean;
  readonly sandboxed: boolean;
  readonly approval: string;
  readonly available: boolean;
  readonly reason?: string;
}

export interface SkillSummary {
  readonly identity: string;
  readonly name: string;
  readonly category: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly default_enabled: boolean;
  readonly disabled_reason: string | null;
  readonly trusted: boolean;
  readonly scripts_approved: boolean;
  readonly location: string;
  readonly license: string | null;
  readonly allowed_tools: readonly string[];
  readonly user_invocable: boolean;
  readonly disable_model_invocation: boolean;
  readonly warnings: readonly string[];
}

export interface SkillDetail extends SkillSummary {
  readonly script_tools: readonly ScriptToolView[];
}

export interface SkillContent {
  readonly identity: string;
  readonly body: string;
  readonly body_truncated: boolean;
  readonly files: readonly { readonly path: string; readonly kind: "file" | "link"; readonly bytes: number }[];
  readonly files_truncated: boolean;
  readonly context_cost: ListingCost & { readonly body_tokens: number };
}

export interface SkillSearchResult {
  readonly identity: string;
  readonly name: string;
  readonly description: string;
  readonly location: string;
  readonly score: number;
}

export interface PluginSummary {
  readonly name: string;
  readonly version?: string;
  readonly description?: string;
  readonly enabled: boolean;
  readonly trusted: boolean;
  readonly scripts_approved: boolean;
  readonly state: "enabled" | "disabled" | "invalid";
  readonly counts: { readonly skills: number; readonly commands: number; readonly agents: number; readonly hooks: number; readonly servers: number };
  readonly problems: { readonly errors: number; readonly warnings: number };
}

export interface PluginHookView {
  readonly event: string;
  readonly matcher: string | null;
  readonly type: string;
  readonly command: string | null;
  readonly runs: boolean;
  readonly reason?: string;
}

export interface PluginVersion {
  readonly version?: string;
  readonly commit?: string;
  readonly integrity?: string;
}

export interface PluginDetail {
  readonly name: string;
  readonly version?: string;
  readonly description?: string;
  readonly enabled: boolean;
  readonly trusted: boolean;
  readonly scripts_approved: boolean;
  readonly state: string;
  readonly skills: readonly { readonly name: string; readonly identity: string; readonly description: string }[];
  readonly commands: readonly { readonly name: string; readonly invocation: string; readonly description: string }[];
  readonly agents: readonly { readonly name: string; readonly description: string }[];
  readonly hooks: { readonly executed: boolean; readonly note: string; readonly handlers: readonly PluginHookView[] };
  readonly servers: readonly { readonly name: string; readonly transport: string; readonly status: string; readonly reason?: string }[];
  readonly script_tools: readonly ScriptToolView[];
  readonly problems: readonly { readonly severity: string; readonly file: string; readonly message: string }[];
  readonly versions?: { readonly marketplace: string; readonly plugin: string; readonly installed: PluginVersion; readonly available?: PluginVersion; readonly update_available: boolean };
  readonly context_cost?: ListingCost;
  readonly rollback?: { readonly version?: string };
  /** After an update or a rollback: the version replaced. */
  readonly previous?: PluginVersion;
}

export interface MarketplaceView {
  readonly name: string;
  readonly source: Readonly<Record<string, unknown>>;
  readonly pinned?: Readonly<Record<string, string>>;
  readonly updated_at?: string;
  readonly description?: string;
  readonly plugins: number;
  readonly problems: readonly string[];
}

export interface MarketplaceEntry {
  readonly name: string;
  readonly description?: string;
  readonly version?: string;
  readonly source_type: string;
  readonly installed: boolean;
  readonly installed_version?: string;
}

export interface MarketplacePreview {
  readonly marketplace: string;
  readonly entry: MarketplaceEntry;
  readonly preview?: PluginDetail;
  readonly note?: string;
}

/** One path segment (skill identities hold `:`; names may hold `/`). */
const segment = (name: string) => encodeURIComponent(name);

export const listSkills = (signal?: AbortSignal) => api<{ skills: SkillSummary[]; problems: { reason: string; message: string }[] }>("/api/skills", { signal });
export const searchSkills = (query: string, signal?: AbortSignal) => api<{ query: string; results: SkillSearchResult[] }>(`/api/skills/search?q=${encodeURIComponent(query)}&limit=20`, { signal });
export const getSkill = (identity: string, signal?: AbortSignal) => api<SkillDetail>(`/api/skills/${segment(identity)}`, { signal });
export const getSkillContent = (identity: string, signal?: AbortSignal) => api<SkillContent>(`/api/skills/${segment(identity)}/content`, { signal });
export const setSkillEnabled = (identity: string, enabled: boolean) => api<SkillSummary>(`/api/skills/${segment(identity)}`, { method: "PUT", body: { enabled } });
export const deleteSkill = (identity: string) => api<void>(`/api/skills/${segment(identity)}`, { method: "DELETE" });

/** POST /api/skills/install with the archive as the multipart field `file`. */
export function installSkillArchive(file: File, overwrite: boolean): Promise<SkillDetail> {
  const form = new FormData();
  form.append("overwrite", overwrite ? "true" : "false");
  form.append("file", file, file.name);
  return api<SkillDetail>("/api/skills/install", { method: "POST", body: form });
}

export const listPlugins = (signal?: AbortSignal) => api<{ plugins: PluginSummary[] }>("/api/plugins", { signal });
export const getPlugin = (name: string, signal?: AbortSignal) => api<PluginDetail>(`/api/plugins/${segment(name)}`, { signal });
export const setPluginEnabled = (name: string, enabled: boolean) => api<PluginDetail>(`/api/plugins/${segment(name)}`, { method: "PUT", body: { enabled } });
export const updatePlugin = (name: string) => api<PluginDetail>(`/api/plugins/${segment(name)}/update`, { method: "POST" });
export const rollbackPlugin = (name: string) => api<PluginDetail>(`/api/plugins/${segment(name)}/rollback`, { method: "POST" });
export const removePlugin = (name: string) => api<void>(`/api/plugins/${segment(name)}`, { method: "DELETE" });
export const installFromMarketplace = (marketplace: string, plugin: string) => api<PluginDetail>("/api/plugins/install", { method: "POST", body: { marketplace, plugin } });

export const listMarketplaces = (signal?: AbortSignal) => api<{ marketplaces: MarketplaceView[] }>("/api/marketplaces", { signal });
export const addMarketplace = (source: string, name?: string) => api<MarketplaceView>("/api/marketplaces", { method: "POST", body: { source, ...(name ? { name } : {}) } });
export const updateMarketplace = (name: string) => api<MarketplaceView>(`/api/marketplaces/${segment(name)}/update`, { method: "POST" });
export const removeMarketplace = (name: string) => api<void>(`/api/marketplaces/${segment(name)}`, { method: "DELETE" });
export const marketplacePlugins = (name: string, signal?: AbortSignal) => api<{ marketplace: string; plugins: MarketplaceEntry[] }>(`/api/marketplaces/${segment(name)}/plugins`, { signal });
export const marketplacePlugin = (name: string, plugin: string, signal?: AbortSignal) => api<MarketplacePreview>(`/api/marketplaces/${segment(name)}/plugins/${segment(plugin)}`, { signal });
