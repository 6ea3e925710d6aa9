import fs from "node:fs";
import path from "node:path";

const publicRegistry = "https://registry.npmjs.org/";

/**
 * npm's own configuration as npm reads it for a registry request, from the user's `.npmrc`
 * (`npm_config_userconfig`, else `$HOME/.npmrc`) and `npm_config_*` variables: the registry
 * (`registry=`, or `@scope:registry=` for a scoped package) and the token for a URL
 * (`//host/path/:_authToken=`, `${VAR}` expanded from the environment). Read at each fetch,
 * never copied anywhere.
 */
export class NpmConfig {
  private readonly values: Map<string, string>;

  constructor(private readonly env: Readonly<Record<string, string | undefined>>) {
    this.values = readNpmrc(env);
  }

  /** `configured` (plugins.fetch.npm_registry), else npm's registry for the package's scope, else the public registry; with a trailing '/'. */
  registryFor(packageName: string, configured?: string): string {
    const scope = packageName.startsWith("@") ? packageName.slice(0, packageName.indexOf("/")) : undefined;
    const found =
      configured ??
      (scope ? this.values.get(`${scope}:registry`) : undefined) ??
      this.env.npm_config_registry ??
      this.env.NPM_CONFIG_REGISTRY ??
      this.values.get("registry") ??
      publicRegistry;
    return found.endsWith("/") ? found : `${found}/`;
  }

  /** The bearer token npm would send to `url`: the longest `//host/path/:_authToken` key that is a prefix of it. */
  tokenFor(url: URL): string | undefined {
    const target = `//${url.host}${url.pathname}`;
    let best: { length: number; token: string } | undefined;
    for (const [key, value] of this.values) {
      if (!key.startsWith("//") || !key.endsWith(":_authToken")) continue;
      const prefix = key.slice(0, -":_authToken".length);
      const withSlash = prefix.endsWith("/") ? prefix : `${prefix}/`;
      if ((target.startsWith(withSlash) || `${target}/` === withSlash) && (!best || withSlash.length > best.length)) best = { length: withSlash.length, token: value };
    }
    return best?.token;
  }
}

function readNpmrc(env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const values = new Map<string, string>();
  const file = env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? (env.HOME ? path.join(env.HOME, ".npmrc") : undefined);
  let text = "";
  try {
    if (file) text = fs.readFileSync(file, "utf8");
  } catch {
    return values;
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const equals = line.indexOf("=");
    if (equals <= 0) continue;
    const key = line.slice(0, equals).trim();
    const value = line
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => env[name] ?? "");
    values.set(key, value);
  }
  return values;
}
