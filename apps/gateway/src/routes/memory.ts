import { operatorId, type Caller } from "@thinktank/core";
import { exportMemoryZip, memorySettingsFor, MemoryStore, resolveMemoryPath, setMemorySettings, type UserMemory } from "@thinktank/memory";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

const pathParams = {
  type: "object",
  required: ["*"],
  properties: { "*": { type: "string", minLength: 1, maxLength: 1024, description: "The file's path under /memories, e.g. `profile.md` for /memories/profile.md" } },
} as const;
const userParams = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 300, pattern: "^[^/\\s]+$", description: "The user's id: usr_<hex>, jwt:<claim>, or admin (the operator)" } },
} as const;
const userPathParams = { type: "object", required: ["id", "*"], properties: { ...userParams.properties, ...pathParams.properties } } as const;
const reasonQuery = {
  type: "object",
  required: ["reason"],
  additionalProperties: false,
  properties: { reason: { type: "string", minLength: 3, maxLength: 500, description: "Why an administrator reads this user's memory: kept in the audit record" } },
} as const;
const fileSchema = {
  type: "object",
  required: ["path", "size", "modified"],
  properties: {
    path: { type: "string", description: "As the model sees it, e.g. /memories/profile.md" },
    size: { type: "integer", description: "Bytes" },
    modified: { type: "string", description: "ISO time of the last change" },
  },
} as const;
const settingsSchema = {
  type: "object",
  required: ["enabled", "auto"],
  properties: {
    enabled: { type: "boolean", description: "Runs have the memory tool and a new thread's <memory> digest" },
    auto: { type: "boolean", description: "After a run ends, a background model call may update memory from what the user said" },
  },
} as const;
const listSchema = {
  type: "object",
  required: ["files", "total_bytes", "settings", "defaults", "limits"],
  properties: {
    files: { type: "array", items: fileSchema },
    total_bytes: { type: "integer" },
    settings: { ...settingsSchema, description: "What applies to the caller now: the server's memory.* with their own choice on top" },
    defaults: { ...settingsSchema, description: "The server's config (memory.enabled, memory.auto): what applies to users who made no choice" },
    limits: { type: "object", required: ["max_files", "max_kb"], properties: { max_files: { type: "integer" }, max_kb: { type: "integer" } } },
  },
} as const;
const contentSchema = {
  type: "object",
  required: ["path", "content", "size", "modified"],
  properties: { ...fileSchema.properties, content: { type: "string", description: "The file's text (UTF-8)" } },
} as const;
const putBody = {
  type: "object",
  required: ["content"],
  additionalProperties: false,
  properties: { content: { type: "string", description: "The file's whole new text (UTF-8); within memory.max_kb and memory.max_files" } },
} as const;
const settingsBody = {
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  properties: {
    enabled: { type: "boolean", description: "false: no memory tool, no digest and no automatic memory in your runs (the files stay; the routes still reach them)" },
    auto: { type: "boolean", description: "Automatic memory for your runs (the server's memory.auto is the default)" },
  },
} as const;

/**
 * /api/memory: the caller's own memory (docs/memory.md) — its files, one file, forget everything,
 * a zip of it, and their switches (users.<id>.memory in extensions_config.json). Every plain route
 * acts on the caller's memory alone, administrators' included; an administrator reaches another
 * user's memory only through /api/users/:id/memory, which needs a reason and is audited, reads too.
 */
const memoryRoutes: RoutePlugin = async (app, { config, deps }) => {
  const memory = deps.memory ?? MemoryStore.fromConfig(config);
  const mine = (request: FastifyRequest): UserMemory => memory.forUser(ownerOf(request.caller));

  app.get(
    "/api/memory",
    {
      config: { access: "user" },
      schema: {
        summary: "Your memory: its files (path as the model sees it, size, last change), your settings and the limits",
        tags: ["memory"],
        response: { 200: listSchema, ...errorResponses(401, 500) },
      },
    },
    async (request, reply) => {
      privateAnswer(reply);
      const files = await mine(request).list();
      const settings = memorySettingsFor(config, (await deps.store.read()).document, ownerOf(request.caller));
      return {
        files,
        total_bytes: files.reduce((sum, file) => sum + file.size, 0),
        settings,
        defaults: { enabled: config.memory.enabled, auto: config.memory.enabled && config.memory.auto },
        limits: { max_files: config.memory.max_files, max_kb: config.memory.max_kb },
      };
    },
  );

  app.get(
    "/api/memory/export",
    {
      config: { access: "user" },
      schema: {
        summary: "Your memory as a zip (memories/<path> for each file)",
        tags: ["memory"],
        response: { 200: { type: "string", format: "binary", description: "application/zip" }, ...errorResponses(401, 500) },
      },
    },
    async (request, reply) => {
      privateAnswer(reply);
      const zip = await exportMemoryZip(mine(request));
      return reply
        .type("application/zip")
        .header("content-disposition", `attachment; filename="memory-${new Date().toISOString().slice(0, 10)}.zip"`)
        .send(zip);
    },
  );

  app.put<{ Body: { enabled?: boolean; auto?: boolean } }>(
    "/api/memory/settings",
    {
      config: { access: "user", audit: "memory.settings", auditFields: ["enabled", "auto"] },
      schema: {
        summary: "Turn your memory, or only automatic memory, on or off (users.<id>.memory in extensions_config.json)",
        description:
          "`enabled: false`: your next runs have no memory tool, no <memory> digest and no automatic memory; the files stay, and these routes still read, change and delete them. `auto`: automatic memory in your runs (the server's `memory.auto` applies while you make no choice). The server's `memory.enabled: false` turns memory off for everyone whatever is chosen here. The answer is what applies now.",
        tags: ["memory"],
        body: settingsBody,
        response: { 200: settingsSchema, ...errorResponses(400, 401, 500, 503) },
      },
    },
    async (request) => {
      const owner = ownerOf(request.caller);
      request.audit = { target: owner };
      const document = await setMemorySettings(deps.store, owner, request.body);
      return memorySettingsFor(config, document, owner);
    },
  );

  app.delete(
    "/api/memory",
    {
      config: { access: "user", audit: "memory.forget" },
      schema: {
        summary: "Forget everything: remove every file of your memory (the next thread's digest is empty)",
        tags: ["memory"],
        response: { 200: { type: "object", required: ["removed"], properties: { removed: { type: "integer", description: "Files removed" } } }, ...errorResponses(401, 500) },
      },
    },
    async (request) => {
      const owner = ownerOf(request.caller);
      request.audit = { target: owner };
      const removed = await mine(request).clear();
      request.log.info({ user: owner, removed }, "memory forgotten");
      return { removed };
    },
  );

  app.get<{ Params: { "*": string } }>(
    "/api/memory/*",
    {
      config: { access: "user" },
      schema: { summary: "One file of your memory, with its text", tags: ["memory"], params: pathParams, response: { 200: contentSchema, ...errorResponses(400, 401, 404, 500) } },
    },
    async (request, reply) => {
      privateAnswer(reply);
      return readFile(mine(request), request.params["*"]);
    },
  );

  app.put<{ Params: { "*": string }; Body: { content: string } }>(
    "/api/memory/*",
    {
      config: { access: "user", audit: "memory.write" },
      schema: {
        summary: "Write one file of your memory (created, or replaced whole)",
        description: "The path follows the memory tool's rules (under /memories, no `..`, no links, no hidden or control characters); the file counts toward memory.max_files and memory.max_kb (413 MEMORY_FULL past them).",
        tags: ["memory"],
        params: pathParams,
        body: putBody,
        response: { 200: fileSchema, ...errorResponses(400, 401, 404, 413, 500) },
      },
    },
    async (request) => {
      const target = virtualPath(request.params["*"]);
      request.audit = { target };
      return mine(request).write(target, request.body.content);
    },
  );

  app.delete<{ Params: { "*": string } }>(
    "/api/memory/*",
    {
      config: { access: "user", audit: "memory.delete" },
      schema: { summary: "Delete one file (or folder) of your memory", tags: ["memory"], params: pathParams, response: { 204: { type: "null", description: "Deleted" }, ...errorResponses(400, 401, 404, 500) } },
    },
    async (request, reply) => {
      const target = virtualPath(request.params["*"]);
      request.audit = { target };
      await mine(request).remove(target);
      return reply.status(204).send();
    },
  );

  // An administrator and another user's memory: an explicit route, a stated reason, an audit record for every call.
  app.get<{ Params: { id: string }; Querystring: { reason: string } }>(
    "/api/users/:id/memory",
    {
      config: { access: "admin", audit: "memory.admin_list" },
      schema: {
        summary: "An administrator lists a user's memory files (with a reason; audited, reads too)",
        tags: ["memory", "users"],
        params: userParams,
        querystring: reasonQuery,
        response: { 200: { type: "object", required: ["user", "files"], properties: { user: { type: "string" }, files: { type: "array", items: fileSchema } } }, ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (request, reply) => {
      privateAnswer(reply);
      request.audit = { target: request.params.id, detail: { reason: request.query.reason } };
      return { user: request.params.id, files: await memory.forUser(request.params.id).list() };
    },
  );

  app.get<{ Params: { id: string; "*": string }; Querystring: { reason: string } }>(
    "/api/users/:id/memory/*",
    {
      config: { access: "admin", audit: "memory.admin_read" },
      schema: {
        summary: "An administrator reads one file of a user's memory (with a reason; audited)",
        tags: ["memory", "users"],
        params: userPathParams,
        querystring: reasonQuery,
        response: { 200: contentSchema, ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      privateAnswer(reply);
      const target = virtualPath(request.params["*"]);
      request.audit = { target: `${request.params.id}:${target}`, detail: { reason: request.query.reason } };
      return readFile(memory.forUser(request.params.id), request.params["*"]);
    },
  );

  app.delete<{ Params: { id: string }; Querystring: { reason: string } }>(
    "/api/users/:id/memory",
    {
      config: { access: "admin", audit: "memory.admin_forget" },
      schema: {
        summary: "An administrator removes every file of a user's memory (with a reason; audited)",
        tags: ["memory", "users"],
        params: userParams,
        querystring: reasonQuery,
        response: { 200: { type: "object", required: ["removed"], properties: { removed: { type: "integer" } } }, ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (request) => {
      request.audit = { target: request.params.id, detail: { reason: request.query.reason } };
      const removed = await memory.forUser(request.params.id).clear();
      request.log.info({ user: request.params.id, removed }, "a user's memory forgotten by an administrator");
      return { removed };
    },
  );
};

/** Whose memory a plain route touches: always the caller's own (a key-less local caller is the operator). */
function ownerOf(caller: Caller | undefined): string {
  return caller?.id ?? operatorId;
}

/** The URL's path (relative to /memories) as the model sees it, checked by the memory tool's rules (400 MEMORY_PATH_INVALID). */
function virtualPath(relative: string): string {
  return resolveMemoryPath(relative, { relative: true }).virtual;
}

/** One file with its text, size and date (one lookup, no link followed; 404 MEMORY_NOT_FOUND). */
async function readFile(user: UserMemory, relative: string): Promise<{ path: string; content: string; size: number; modified: string }> {
  const located = await user.locate(resolveMemoryPath(relative, { relative: true }));
  const content = await user.readLocated(located);
  return { path: located.path.virtual, content, size: located.stat?.size ?? Buffer.byteLength(content), modified: (located.stat?.mtime ?? new Date()).toISOString() };
}

/** Memory is one person's: never cached, never shared between callers, never sniffed. */
function privateAnswer(reply: FastifyReply): void {
  reply.header("cache-control", "no-store");
  reply.header("vary", "Authorization, X-API-Key");
  reply.header("x-content-type-options", "nosniff");
}

export default memoryRoutes;
