import { validRange } from "semver";
import { ThinktankError } from "@thinktank/core";

/**
 * Checks of every value that reaches git or npm from a marketplace or a request, so none can
 * be read as an option or a command: no value may start with '-', hold control characters or
 * whitespace; git URLs must use a plain transport (no `ext::` / `fd::` / `<helper>::`
 * remote-helper syntax, which runs commands), refs and paths must be plain names.
 */

const control = /[\u0000-\u0020\u007f]/;

function refuse(what: string, value: string, why: string): never {
  throw new ThinktankError("INVALID_SOURCE", `${what} ${JSON.stringify(value)} ${why}`, { details: { [what.replace(/\s+/g, "_")]: value } });
}

function plain(what: string, value: unknown): string {
  if (typeof value !== "string" || value === "") throw new ThinktankError("INVALID_SOURCE", `${what} must be a non-empty string`);
  if (value.startsWith("-")) refuse(what, value, "starts with '-' (it would be read as an option)");
  if (control.test(value)) refuse(what, value, "holds whitespace or control characters");
  if (value.length > 2048) refuse(what, value.slice(0, 40), "is too long");
  return value;
}

/** A git URL: https:// (http:// when allowed), ssh://, git://, or scp-like `user@host:path`. */
export function checkGitUrl(value: unknown, options: { readonly allowHttp: boolean }): string {
  const url = plain("git URL", value);
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url) || url.includes("::")) refuse("git URL", url, "uses remote-helper syntax ('<transport>::'), which can run commands");
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    // scp-like ssh: user@host:path, never a local path (which git would also take).
    if (!/^[A-Za-z0-9._][A-Za-z0-9._-]*@[A-Za-z0-9.][A-Za-z0-9.-]*:[A-Za-z0-9._~/-]+$/.test(url) || url.includes("..")) refuse("git URL", url, "is not an https://, ssh://, git:// or user@host:path URL");
    return url;
  }
  const allowed = options.allowHttp ? ["https", "http", "ssh", "git"] : ["https", "ssh", "git"];
  if (!allowed.includes(scheme)) refuse("git URL", url, `uses ${scheme}://; allowed: ${allowed.map((s) => `${s}://`).join(", ")}${scheme === "http" ? " (plugins.fetch.allow_http allows http)" : ""}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    refuse("git URL", url, "is not a valid URL");
  }
  // ssh would read a user or host that starts with '-' as an option (-oProxyCommand=...).
  if (parsed.hostname === "" || parsed.hostname.startsWith("-") || decodeURIComponent(parsed.username).startsWith("-")) refuse("git URL", url, "has no usable host, or a user or host starting with '-'");
  return url;
}

/** An https:// (or allowed http://) URL fetched over HTTP: a marketplace.json, a registry, a tarball. */
export function checkHttpUrl(value: unknown, options: { readonly allowHttp: boolean }, what = "URL"): URL {
  const text = plain(what, value);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    refuse(what, text, "is not a valid URL");
  }
  if (url.protocol !== "https:" && !(options.allowHttp && url.protocol === "http:")) refuse(what, text, `must be https://${options.allowHttp ? " or http://" : " (plugins.fetch.allow_http allows http)"}`);
  return url;
}

/** A branch or tag name as git accepts one, without anything git would read as an option or a revision expression. */
export function checkRef(value: unknown): string {
  const ref = plain("ref", value);
  if (!/^[A-Za-z0-9_][A-Za-z0-9._/+-]*$/.test(ref) || ref.includes("..") || ref.includes("//") || ref.endsWith("/") || ref.endsWith(".lock") || ref.endsWith(".")) {
    refuse("ref", ref, "is not a plain branch or tag name");
  }
  return ref;
}

/** A full commit id (SHA-1 or SHA-256). */
export function checkCommit(value: unknown): string {
  const sha = plain("sha", value);
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) refuse("sha", sha, "is not a full commit id (40 or 64 lowercase hex digits)");
  return sha;
}

/** A path inside a fetched tree: relative, no '..', no leading '/'. Returns it without './' and trailing '/'. */
export function checkSubPath(value: unknown): string {
  const written = plain("path", value);
  const segments = written.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (written.startsWith("/") || written.includes("\\") || segments.includes("..") || segments.some((s) => s.startsWith("-"))) refuse("path", written, "must stay inside the repository (relative, no '..')");
  return segments.join("/");
}

/** `owner/repo` as GitHub names them. */
export function checkRepo(value: unknown): string {
  const repo = plain("repo", value);
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo) || repo.split("/").some((part) => part === "." || part === ".." || part.startsWith("-"))) refuse("repo", repo, "is not owner/repo");
  return repo.replace(/\.git$/, "");
}

/** An npm package name (scoped or not), as the registry accepts new ones. */
export function checkPackageName(value: unknown): string {
  const name = plain("package", value);
  if (!/^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name) || name.length > 214) refuse("package", name, "is not an npm package name");
  return name;
}

/** An exact version, a dist-tag, or a semver range without spaces (`^1.2.0`, `~1.2`, `1.x`), resolved as npm does (the highest match). */
export function checkPackageVersion(value: unknown): string {
  const version = plain("version", value);
  if (!/^[A-Za-z0-9][A-Za-z0-9.+_-]*$/.test(version) && validRange(version) === null) {
    refuse("version", version, "must be an exact version (1.2.3), a dist-tag (latest) or a semver range (^1.2.0)");
  }
  return version;
}
