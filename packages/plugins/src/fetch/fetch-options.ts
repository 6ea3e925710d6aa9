import { archiveLimitsFromConfig, defaultArchiveLimits, hostConfinementFor, type ArchiveLimits, type Config, type HiddenPathsConfig, type HostConfinement } from "@thinktank/core";

/** How marketplaces and plugins are fetched from git, npm and URLs. */
export interface FetchOptions {
  /** How long one fetch may take (a clone, a registry request). @default 120000 */
  readonly timeoutMs: number;
  /** How many bytes one fetch may bring in (a pack, a tarball, a JSON file). @default 200 MiB */
  readonly maxBytes: number;
  /** Where `github` sources are cloned from: `<githubUrl>/<owner>/<repo>.git`. @default "https://github.com" */
  readonly githubUrl: string;
  /** The npm registry; undefined: npm's own configuration (see npmRegistryFor). */
  readonly npmRegistry?: string;
  /** Allow plain http:// URLs. @default false */
  readonly allowHttp: boolean;
  /** Where credentials come from (GITHUB_TOKEN, HOME for ~/.npmrc, npm_config_*): read at each fetch, never stored. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The archive rules for what is fetched (entries, sizes, links). */
  readonly archiveLimits: ArchiveLimits;
  /** How git is confined on the host (share the service's). @default a HostConfinement hiding nothing, made per fetch */
  readonly hostConfinement?: HostConfinement;
}

const mebibyte = 1024 * 1024;

export const defaultFetchOptions: FetchOptions = Object.freeze({
  timeoutMs: 120_000,
  maxBytes: 200 * mebibyte,
  githubUrl: "https://github.com",
  allowHttp: false,
  env: {},
  archiveLimits: defaultArchiveLimits,
});

/** plugins.fetch of config.yaml, the archive limits, config.env, and how git is confined (the service's, else hostConfinementFor(config)). */
export function fetchOptionsFromConfig(config: Pick<Config, "plugins" | "gateway" | "env"> & HiddenPathsConfig, hostConfinement: HostConfinement = hostConfinementFor(config)): FetchOptions {
  const fetch = config.plugins.fetch;
  return Object.freeze({
    timeoutMs: fetch.timeout_seconds * 1000,
    maxBytes: Math.floor(fetch.max_mb * mebibyte),
    githubUrl: fetch.github_url,
    ...(fetch.npm_registry ? { npmRegistry: fetch.npm_registry } : {}),
    allowHttp: fetch.allow_http,
    env: config.env,
    archiveLimits: archiveLimitsFromConfig(config),
    hostConfinement,
  });
}
