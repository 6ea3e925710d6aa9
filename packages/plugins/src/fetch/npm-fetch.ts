import { maxSatisfying } from "semver";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { extractTarGz, ThinktankError } from "@thinktank/core";
import { checkHttpUrl, checkPackageName, checkPackageVersion } from "./check-source-values.js";
import type { FetchOptions } from "./fetch-options.js";
import { httpGet } from "./http-get.js";
import { NpmConfig } from "./npm-config.js";

export interface NpmPackageRequest {
  readonly package: string;
  /** An exact version, a dist-tag, or a semver range (the highest version it matches). @default "latest" */
  readonly version?: string;
  /** The registry named by the source itself (a marketplace entry's `registry`); else npm's configuration. */
  readonly registry?: string;
  /** Created with the package's content (the tarball's top folder); must not exist. */
  readonly destination: string;
  readonly workParent: string;
}

export interface FetchedNpmPackage {
  readonly version: string;
  /** The `dist.integrity` the tarball was verified against (`sha512-...`), or `sha1-...` from `dist.shasum`. */
  readonly integrity: string;
  readonly tarball: string;
}

/**
 * Fetches one version of an npm package the way npm does, over the registry protocol: the
 * packument (`GET <registry>/<name>`, abbreviated form), the version (exact, a dist-tag, or the highest match of a range),
 * then `dist.tarball`, whose bytes must match `dist.integrity` (else INTEGRITY_MISMATCH), and
 * extracts it under the archive rules (extractTarGz). The registry and its token come from
 * plugins.fetch.npm_registry or npm's own configuration (NpmConfig); the token is sent only
 * to URLs it is configured for. Both requests are bounded by plugins.fetch (timeout, size).
 */
export async function fetchNpmPackage(request: NpmPackageRequest, options: FetchOptions): Promise<FetchedNpmPackage> {
  const name = checkPackageName(request.package);
  const wanted = checkPackageVersion(request.version ?? "latest");
  const npm = new NpmConfig(options.env);
  const registry = checkHttpUrl(request.registry ?? npm.registryFor(name, options.npmRegistry), options, "npm registry");
  const packumentUrl = new URL(name.replace("/", "%2f"), registry.href.endsWith("/") ? registry : new URL(`${registry.href}/`));
  const limits = { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes };
  const packument = parsePackument(
    (await httpGet(packumentUrl, { ...limits, what: `the npm packument of ${name}`, headers: { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8", ...auth(npm, packumentUrl) } })).body,
    name,
  );
  const version = packument.versions[wanted] ? wanted : (packument.tags[wanted] ?? maxSatisfying(Object.keys(packument.versions), wanted) ?? undefined);
  const manifest = version ? packument.versions[version] : undefined;
  if (!version || !manifest) {
    throw new ThinktankError("NOT_FOUND", `npm package ${name} has no version or dist-tag '${wanted}' (latest: ${packument.tags.latest ?? "none"})`, { details: { package: name, version: wanted } });
  }
  const dist = manifest.dist ?? {};
  const tarball = checkHttpUrl(dist.tarball, options, "tarball URL");
  const integrity = typeof dist.integrity === "string" ? dist.integrity : typeof dist.shasum === "string" ? `sha1-${Buffer.from(dist.shasum, "hex").toString("base64")}` : undefined;
  if (!integrity) throw new ThinktankError("SOURCE_FETCH_FAILED", `npm package ${name}@${version} has no dist.integrity or dist.shasum to verify its tarball against`);
  const { body } = await httpGet(tarball, { ...limits, what: `the tarball of ${name}@${version}`, headers: auth(npm, tarball) });
  verifyIntegrity(body, integrity, `${name}@${version}`);
  const work = await fs.promises.mkdtemp(path.join(request.workParent, "npm-"));
  try {
    const extracted = path.join(work, "extracted");
    await extractTarGz(body, extracted, { limits: { ...options.archiveLimits, maxTotalBytes: Math.min(options.archiveLimits.maxTotalBytes, options.maxBytes) } });
    // npm packs everything under one top folder ("package/", some older tarballs another name).
    const top = await fs.promises.readdir(extracted, { withFileTypes: true });
    const root = top.length === 1 && top[0]?.isDirectory() ? path.join(extracted, top[0].name) : extracted;
    await fs.promises.rename(root, request.destination);
    return { version, integrity, tarball: tarball.href };
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

interface Packument {
  readonly versions: Readonly<Record<string, { readonly dist?: { readonly tarball?: unknown; readonly integrity?: unknown; readonly shasum?: unknown } }>>;
  readonly tags: Readonly<Record<string, string>>;
}

function parsePackument(body: Buffer, name: string): Packument {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ThinktankError("SOURCE_FETCH_FAILED", `the registry's answer for ${name} is not JSON`);
  }
  const record = value as { versions?: unknown; "dist-tags"?: unknown };
  if (!record || typeof record !== "object" || !record.versions || typeof record.versions !== "object") {
    throw new ThinktankError("SOURCE_FETCH_FAILED", `the registry's answer for ${name} is not a packument (no versions)`);
  }
  const tags = record["dist-tags"] && typeof record["dist-tags"] === "object" ? (record["dist-tags"] as Record<string, string>) : {};
  return { versions: record.versions as Packument["versions"], tags: Object.fromEntries(Object.entries(tags).filter(([, v]) => typeof v === "string")) };
}

/** Checks the bytes against an SRI string (`sha512-<base64>`, several allowed: the strongest known one must match). */
export function verifyIntegrity(bytes: Buffer, integrity: string, what: string): void {
  const order = ["sha512", "sha384", "sha256", "sha1"];
  const entries = integrity
    .split(/\s+/)
    .map((item) => /^(sha512|sha384|sha256|sha1)-([A-Za-z0-9+/=]+)(\?.*)?$/.exec(item))
    .filter((match): match is RegExpExecArray => match !== null)
    .sort((a, b) => order.indexOf(a[1] as string) - order.indexOf(b[1] as string));
  const strongest = entries[0];
  if (!strongest) throw new ThinktankError("SOURCE_FETCH_FAILED", `${what}: integrity ${JSON.stringify(integrity)} names no known hash`);
  const algorithm = strongest[1] as string;
  const actual = crypto.createHash(algorithm).update(bytes).digest("base64");
  const expected = entries.filter((entry) => entry[1] === algorithm).map((entry) => entry[2]);
  if (!expected.includes(actual)) throw new ThinktankError("INTEGRITY_MISMATCH", `${what}: the tarball's ${algorithm} is ${actual}, not the ${expected[0]} the registry published`);
}

function auth(npm: NpmConfig, url: URL): Record<string, string> {
  const token = npm.tokenFor(url);
  return token ? { authorization: `Bearer ${token}` } : {};
}
