import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import { ThinktankError } from "@thinktank/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * The web console's pages (docs/console.md, "Headers"): no inline script or style, nothing from
 * another origin, never framed. Sent on every console answer (index.html, assets, the not-built page).
 */
export const consoleHeaders: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
});

/** Paths that are never a client-side route of the console: the APIs, the docs, health, MCP. */
const notConsolePaths = /^\/(api|agent|docs|healthz|mcp|openapi\.json|assets)(\/|$|\?)/;

/** Where the built console is: apps/console/dist/app of the @thinktank/console workspace, or undefined when it is not installed. */
export function defaultConsoleDir(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve("@thinktank/console/package.json");
    return path.join(path.dirname(manifest), "dist", "app");
  } catch {
    return undefined;
  }
}

export interface ConsoleSite {
  /**
   * The not-found handler's first look: index.html for a GET or HEAD that accepts text/html and is
   * not under /api, /agent, /docs, /healthz, /mcp or /assets (a client-side route such as
   * /skills/x). True when it answered.
   */
  fallback(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
}

/**
 * Serves the built console from `dir` (index.html + hashed assets/*): `/assets/*` cacheable for a
 * year (the names change with the content), `/` and client-side routes index.html with
 * `Cache-Control: no-cache`, each with consoleHeaders. Not built (no index.html): 503
 * CONSOLE_NOT_BUILT saying to run `npm run build`. The file is looked at on each request (one
 * stat), so a build made while the gateway runs is served at once.
 */
export function registerConsoleSite(app: FastifyInstance, dir: string | undefined): ConsoleSite {
  const indexFile = path.join(dir ?? "(the @thinktank/console workspace is not installed)", "index.html");
  let cached: { mtimeMs: number; size: number; body: Buffer } | undefined;

  const readIndex = async (): Promise<Buffer | undefined> => {
    if (dir === undefined) return undefined;
    const stat = await fs.stat(indexFile).catch(() => undefined);
    if (!stat?.isFile()) return undefined;
    if (cached?.mtimeMs !== stat.mtimeMs || cached.size !== stat.size) cached = { mtimeMs: stat.mtimeMs, size: stat.size, body: await fs.readFile(indexFile) };
    return cached.body;
  };

  const sendIndex = async (reply: FastifyReply): Promise<FastifyReply> => {
    reply.headers(consoleHeaders);
    const body = await readIndex();
    if (!body) throw new ThinktankError("CONSOLE_NOT_BUILT", `the web console is not built (no ${indexFile}): run npm run build (or npm run build --workspace @thinktank/console), then reload`);
    return reply.header("cache-control", "no-cache").type("text/html; charset=utf-8").send(body);
  };

  app.register(async (scope) => {
    scope.addHook("onRoute", (route) => {
      route.config = { ...route.config, access: "public" };
    });
    scope.addHook("onSend", async (_request, reply) => {
      reply.headers(consoleHeaders);
    });
    if (dir !== undefined) await scope.register(fastifyStatic, {
      root: path.join(dir, "assets"),
      prefix: "/assets/",
      wildcard: true,
      index: false,
      dotfiles: "deny",
      cacheControl: true,
      maxAge: 365 * 24 * 3600 * 1000,
      immutable: true,
      // Cache-Control says it all; a 304 dance for an immutable file is wasted.
      etag: false,
      lastModified: false,
      schemaHide: true,
    });
    scope.get("/", { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
  });

  return {
    fallback: async (request, reply) => {
      if (request.method !== "GET" && request.method !== "HEAD") return false;
      const url = request.url;
      if (notConsolePaths.test(url)) return false;
      if (!acceptsHtml(request.headers.accept)) return false;
      await sendIndex(reply);
      return true;
    },
  };
}

/** True when the Accept header names text/html (a browser navigating), not merely * / *. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}
