import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A test npm registry on 127.0.0.1 speaking the read half of the registry protocol: packuments
 * (`GET /<name>`, `GET /@scope%2fname`) and tarballs (`GET /<name>/-/<file>.tgz`), with
 * `dist.integrity` and `dist.shasum` as the public registry publishes them. Packages are packed
 * by npm itself (`npm pack`). A test fixture only: the client under test is the code that talks
 * to the public registry.
 */
export interface NpmRegistryServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** Packs `folder` (which has a package.json) with `npm pack` and publishes it as latest. */
  publish(folder: string): { name: string; version: string; integrity: string };
  /** Publishes given tarball bytes; `integrity` may lie (for integrity tests). */
  publishTarball(name: string, version: string, tarball: Buffer, options?: { readonly integrity?: string }): { integrity: string };
  /** Every request path, in order. */
  readonly requests: readonly string[];
  /** Authorization headers seen, in order (to check tokens go where they should). */
  readonly authorizations: readonly (string | undefined)[];
  close(): Promise<void>;
}

interface Published {
  versions: Record<string, { name: string; version: string; dist: { tarball: string; integrity: string; shasum: string } }>;
  "dist-tags": Record<string, string>;
  tarballs: Map<string, Buffer>;
}

export async function startNpmRegistryServer(options: { readonly token?: string } = {}): Promise<NpmRegistryServer> {
  const packages = new Map<string, Published>();
  const requests: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    requests.push(pathname);
    authorizations.push(request.headers.authorization);
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "authentication required" }));
      return;
    }
    const tarball = /^\/(.+)\/-\/([^/]+\.tgz)$/.exec(pathname);
    if (tarball) {
      const bytes = packages.get(tarball[1] as string)?.tarballs.get(tarball[2] as string);
      if (!bytes) return void response.writeHead(404).end();
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length }).end(bytes);
      return;
    }
    const published = packages.get(pathname.slice(1));
    if (!published) return void response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
    response.writeHead(200, { "content-type": "application/vnd.npm.install-v1+json" }).end(JSON.stringify({ name: pathname.slice(1), versions: published.versions, "dist-tags": published["dist-tags"] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  const publishTarball = (name: string, version: string, bytes: Buffer, publishOptions: { readonly integrity?: string } = {}): { integrity: string } => {
    const integrity = publishOptions.integrity ?? `sha512-${crypto.createHash("sha512").update(bytes).digest("base64")}`;
    const file = `${name.split("/").pop()}-${version}.tgz`;
    const published = packages.get(name) ?? { versions: {}, "dist-tags": {}, tarballs: new Map<string, Buffer>() };
    published.tarballs.set(file, bytes);
    published.versions[version] = { name, version, dist: { tarball: `${url}${name}/-/${file}`, integrity, shasum: crypto.createHash("sha1").update(bytes).digest("hex") } };
    published["dist-tags"].latest = version;
    packages.set(name, published);
    return { integrity };
  };

  const publish = (folder: string): { name: string; version: string; integrity: string } => {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8")) as { name: string; version: string };
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "tt-npm-pack-"));
    try {
      const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", out], { cwd: folder, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as { filename: string }[];
      const bytes = fs.readFileSync(path.join(out, (packed[0] as { filename: string }).filename));
      return { name: manifest.name, version: manifest.version, ...publishTarball(manifest.name, manifest.version, bytes) };
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  };

  return {
    url,
    publish,
    publishTarball,
    requests,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
