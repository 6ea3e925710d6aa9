import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { skillDetailJsonSchema, skillJsonSchema, skillProblemJsonSchema, skillSummaryJsonSchema, toSkillJson, toSkillSummaryJson } from "@thinktank/skills";
import type { Skill, SkillPackageSource, SkillSummaryJson, SkillsSnapshot } from "@thinktank/skills";
import type { FastifyReply, FastifyRequest } from "fastify";
import { routeCodeListing, type CodeListing } from "../code-listing.js";
import { errorResponses } from "../error-response.js";
import { gatewaySkillsService } from "../gateway-deps.js";
import type { RoutePlugin } from "../route-plugin.js";
import { registerSkillContentRoute } from "./skill-content.js";

const nameParams = { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1, maxLength: 300 } } } as const;
const categoryQuery = {
  type: "object",
  additionalProperties: false,
  properties: { category: { type: "string", description: "public, custom, user (your own) or plugin:<plugin>: picks one skill when a name is used in several categories" } },
} as const;
const listSchema = {
  type: "object",
  required: ["skills", "problems"],
  properties: {
    skills: { type: "array", items: skillSummaryJsonSchema, description: "Every skill without its raw frontmatter (GET /api/skills/:name has it)" },
    problems: { type: "array", items: skillProblemJsonSchema, description: "SKILL.md files skipped, duplicates, and settings that could not be applied" },
  },
} as const;
const installJsonBody = {
  type: "object",
  required: ["path"],
  additionalProperties: false,
  properties: {
    path: { type: "string", minLength: 1, description: "A .skill/.zip archive or a skill folder on the gateway's machine (relative paths resolve against config.yaml's folder)" },
    overwrite: { type: "boolean", default: false, description: "Replace an installed custom skill of the same name" },
    strict: { type: "boolean", description: "Refuse any departure from the Agent Skills spec (as `skills validate`); without it they are warnings" },
    trusted: { type: "boolean", default: false, description: "Record the skill as trusted: its script tools run as trusted code instead of in the sandbox. Without it an installed skill is untrusted (an earlier trust is dropped)" },
  },
} as const;
const settingsBody = {
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  description: "Each field given is written to the skill's entry in extensions_config.json (under its identity)",
  properties: {
    enabled: { type: "boolean" },
    trusted: { type: "boolean", description: "Its script tools run as trusted code (on the host, confined) instead of in the sandbox. A public skill is always trusted: false answers 403" },
    scripts_approved: { type: "boolean", description: "Its script tools run without asking first, in every thread" },
  },
} as const;
const searchQuery = {
  type: "object",
  required: ["q"],
  additionalProperties: false,
  properties: {
    q: { type: "string", minLength: 1, maxLength: 2000, description: "What the user wants done, in their words" },
    limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "How many skills at most" },
  },
} as const;
const searchSchema = {
  type: "object",
  required: ["query", "results"],
  properties: {
    query: { type: "string" },
    results: {
      type: "array",
      description: "Best first: the enabled skills the model may use (public, custom, enabled plugins')",
      items: {
        type: "object",
        required: ["identity", "name", "description", "location", "score"],
        additionalProperties: false,
        properties: {
          identity: { type: "string", description: "public:<name>, custom:<name>, user:<name> (the caller's own) or plugin:<plugin>:<name>" },
          name: { type: "string" },
          description: { type: "string", description: "The description's first sentence, at most 160 characters" },
          location: { type: "string", description: "The SKILL.md path the model reads, e.g. /mnt/skills/public/pdf/SKILL.md" },
          score: { type: "number", description: "Relevance; comparable only within one search" },
        },
      },
    },
  },
} as const;
// The multipart parser leaves the body empty (validated as null); the fields are read from the stream.
const installMultipartBody = {
  type: "object",
  nullable: true,
  description:
    "Field `file`: the .skill or .zip archive. Field `overwrite`: true to replace an installed custom skill of the same name. Field `strict`: true to refuse any departure from the Agent Skills spec. Field `trusted`: true to record the skill as trusted.",
  properties: {
    file: { type: "string", description: "the archive (binary)" },
    overwrite: { type: "string", enum: ["true", "false"] },
    strict: { type: "string", enum: ["true", "false"] },
    trusted: { type: "string", enum: ["true", "false"] },
  },
} as const;

/** GET/PUT/DELETE /api/skills/:name, GET /api/skills, GET /api/skills/search, POST /api/skills/install. */
const skillsRoutes: RoutePlugin = async (app, { config, deps }) => {
  const skills = deps.skills ?? gatewaySkillsService(config, deps.store, deps.plugins, app.log);
  // The service's snapshotter watches skill folders: stop the watchers with the app.
  app.addHook("onClose", async () => skills.close());
  const code = routeCodeListing(config, deps);
  app.addHook("onClose", () => code.close());
  // One serialized body per snapshot: while nothing changes, GET /api/skills sends the same bytes.
  const listBodies = new WeakMap<SkillsSnapshot, Buffer>();

  app.get(
    "/api/skills",
    { config: { access: "public" }, schema: { summary: "List every skill as it applies to the caller (public, custom, plugin, and a user's own `user:` skills): `enabled` is theirs, `default_enabled` the administrator's default; with skipped files and setting problems", tags: ["skills"], response: { 200: listSchema, ...errorResponses(500) } } },
    async (request, reply) => {
      // The caller's view: their overlay and own skills over the defaults (an anonymous caller sees the defaults).
      const snapshot = await skills.list(request.caller);
      setEtag(reply, snapshot.etag);
      varyByCaller(reply);
      let body = listBodies.get(snapshot);
      if (!body) {
        const list: { skills: SkillSummaryJson[]; problems: SkillsSnapshot["problems"] } = { skills: snapshot.skills.map(toSkillSummaryJson), problems: snapshot.problems };
        body = Buffer.from(JSON.stringify(list));
        listBodies.set(snapshot, body);
      }
      return reply.type("application/json; charset=utf-8").send(body);
    },
  );

  // A static route: it wins over /api/skills/:name, so a skill named "search" is reached by identity (/api/skills/public:search).
  app.get<{ Querystring: { q: string; limit: number } }>(
    "/api/skills/search",
    {
      config: { access: "public" },
      schema: {
        summary: "Search the skills the model may use: identity, one-line description, location and score, best first",
        tags: ["skills"],
        querystring: searchQuery,
        response: { 200: searchSchema, ...errorResponses(400, 500) },
      },
    },
    async (request, reply) => {
      varyByCaller(reply);
      return { query: request.query.q, results: await skills.search(request.query.q, { limit: request.query.limit, viewer: request.caller }) };
    },
  );

  app.get<{ Params: { name: string }; Querystring: { category?: string } }>(
    "/api/skills/:name",
    {
      config: { access: "public" },
      schema: {
        summary: "One skill by name or identity (`custom:pdf`); ?category= when the name is used in several categories",
        description:
          "With `script_tools`: every script tool of its tools.json, shown before anything runs: where it runs (trusted on the host, confined; untrusted in the sandbox), whether it asks first (tools.approval) and whether it can run on this sandbox backend. A tools.json that cannot be used is named in `warnings`.",
        tags: ["skills"],
        params: nameParams,
        querystring: categoryQuery,
        response: { 200: skillDetailJsonSchema, ...errorResponses(400, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const skill = await skills.get(request.params.name, request.query.category, request.caller);
      setEtag(reply, (await skills.list(request.caller)).etag);
      varyByCaller(reply);
      return skillDetail(skill, code.listing);
    },
  );

  registerSkillContentRoute(app, skills);

  app.put<{ Params: { name: string }; Querystring: { category?: string }; Body: { enabled?: boolean; trusted?: boolean; scripts_approved?: boolean }; Headers: { "if-match"?: string } }>(
    "/api/skills/:name",
    {
      config: { access: "user", audit: "skill.settings", auditFields: ["enabled", "trusted", "scripts_approved"], adminFields: ["trusted", "scripts_approved"] },
      schema: {
        summary: "Enable or disable a skill, mark it trusted or approve its scripts (written to extensions_config.json under its identity)",
        description:
          "An administrator's change sets the default for everyone (`skills.<identity>`). A user's `enabled` changes only their own view (`users.<id>.skills.<identity>`): other users and the default are untouched; `trusted` and `scripts_approved` from a user answer 403.",
        tags: ["skills"],
        params: nameParams,
        querystring: categoryQuery,
        headers: { type: "object", properties: { "if-match": { type: "string", description: "Write only if the config's ETag still matches (else 412)" } } },
        body: settingsBody,
        response: { 200: skillJsonSchema, ...errorResponses(400, 401, 403, 404, 409, 412, 500, 503) },
      },
    },
    async (request, reply) => {
      const { enabled, trusted, scripts_approved: scriptsApproved } = request.body;
      const change = { ...(enabled === undefined ? {} : { enabled }), ...(trusted === undefined ? {} : { trusted }), ...(scriptsApproved === undefined ? {} : { scriptsApproved }) };
      // Unknown fields are dropped by the schema; a body left empty changes nothing and says so.
      if (Object.keys(change).length === 0) throw new ThinktankError("BAD_REQUEST", "send at least one of enabled, trusted, scripts_approved (true or false)");
      const { skill, etag } = await skills.updateSettings(request.params.name, change, { category: request.query.category, ifMatch: request.headers["if-match"], viewer: request.caller });
      request.log.info({ skill: skill.identity, enabled: skill.enabled, trusted: skill.trusted, scripts_approved: skill.scriptsApproved }, "skill setting changed");
      setEtag(reply, etag);
      return toSkillJson(skill);
    },
  );

  app.delete<{ Params: { name: string }; Querystring: { category?: string } }>(
    "/api/skills/:name",
    {
      config: { access: "user", audit: "skill.delete" },
      schema: {
        summary: "Delete a custom skill (public and plugin skills answer 403); a user deletes only their own `user:` skills",
        tags: ["skills"],
        params: nameParams,
        querystring: categoryQuery,
        response: { 204: { type: "null", description: "Deleted" }, ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
      },
    },
    async (request, reply) => {
      const skill = await skills.remove(request.params.name, { category: request.query.category, viewer: request.caller });
      request.log.info({ skill: skill.identity }, "custom skill deleted");
      return reply.status(204).send();
    },
  );

  app.post<{ Querystring: { overwrite?: boolean; strict?: boolean }; Body: { path: string; overwrite?: boolean; strict?: boolean; trusted?: boolean } | undefined }>(
    "/api/skills/install",
    {
      config: { access: "user", audit: "skill.install", auditFields: ["path", "trusted"] },
      schema: {
        summary: "Install a skill into skills/custom from an uploaded archive (multipart field `file`) or a path on the server (JSON `{ path }`); a user's upload becomes their own `user:<name>`",
        description:
          "The archive is checked entry by entry (paths, links, devices, sizes counted while extracting, compression ratio); after any failure nothing is left behind. The skill is accepted as Claude Code loads it: departures from the Agent Skills spec (a name that differs from its folder, a description past 1,024 characters or with '<' '>', YAML a strict parser refuses, read line by line) are `warnings` in the answer, and `strict=true` (query, body or form field) refuses them instead. A skill without a usable description is refused. `overwrite=true` replaces an installed custom skill atomically. The skill is untrusted (its script tools run in the sandbox) unless the body or form says `trusted: true`; installing again without it drops an earlier trust and script approval. The answer lists its script tools (`script_tools`) as GET /api/skills/:name does. A user (role `user`) uploads an archive only, never trusted: the skill goes to their own folder as `user:<name>`, visible to them alone (another user may have a skill of the same name).",
        tags: ["skills"],
        querystring: { type: "object", additionalProperties: false, properties: { overwrite: { type: "boolean" }, strict: { type: "boolean" } } },
        body: { content: { "application/json": { schema: installJsonBody }, "multipart/form-data": { schema: installMultipartBody } } },
        response: { 201: skillDetailJsonSchema, ...errorResponses(400, 401, 404, 409, 413, 415, 422, 500, 503) },
      },
    },
    async (request, reply) => {
      const admin = request.caller?.role === "admin";
      // A path names the gateway's own files, and trust is an administrator's decision: a user uploads, untrusted.
      if (!admin && !request.isMultipart()) throw new ThinktankError("FORBIDDEN", "installing from a path on the gateway's machine is an administrator's decision: upload the archive (multipart field `file`)", { details: { fields: ["path"] } });
      const { source, overwrite, strict, trusted } = request.isMultipart() ? await readUpload(request) : fromJson(request.body, config.base_dir);
      if (!admin && trusted !== undefined) throw new ThinktankError("FORBIDDEN", "trusted is an administrator's decision: install without it (the skill's script tools then run in the sandbox)", { details: { fields: ["trusted"] } });
      const skill = await skills.install(source, { overwrite: overwrite ?? request.query.overwrite ?? false, strict: strict ?? request.query.strict ?? false, trusted: trusted ?? false, viewer: request.caller });
      const detail = await skillDetail(skill, code.listing);
      request.log.info({ skill: skill.identity, trusted: skill.trusted, script_tools: detail.script_tools.length }, "skill installed");
      request.audit = { target: skill.identity, detail: { trusted: skill.trusted } };
      return reply.status(201).send(detail);
    },
  );
};

interface InstallRequest {
  source: SkillPackageSource;
  overwrite: boolean | undefined;
  strict: boolean | undefined;
  trusted: boolean | undefined;
}

function fromJson(body: { path: string; overwrite?: boolean; strict?: boolean; trusted?: boolean } | undefined, baseDir: string): InstallRequest {
  if (!body) throw new ThinktankError("BAD_REQUEST", "send a multipart upload with field `file`, or JSON { \"path\": \"...\" }");
  return { source: { kind: "path", path: path.resolve(baseDir, body.path) }, overwrite: body.overwrite, strict: body.strict, trusted: body.trusted };
}

/** Reads the multipart form: one `file` part (the archive) and optional `overwrite`, `strict` and `trusted` fields. */
async function readUpload(request: FastifyRequest): Promise<InstallRequest> {
  let data: Buffer | undefined;
  const flags: { overwrite?: boolean; strict?: boolean; trusted?: boolean } = {};
  for await (const part of request.parts()) {
    if (part.type === "file") {
      if (part.fieldname !== "file") throw new ThinktankError("BAD_REQUEST", `unexpected file field '${part.fieldname}': send the archive as field 'file'`);
      if (data) throw new ThinktankError("BAD_REQUEST", "send one archive per request");
      data = await part.toBuffer();
    } else if (part.fieldname === "overwrite" || part.fieldname === "strict" || part.fieldname === "trusted") {
      const value = String(part.value).trim().toLowerCase();
      if (value !== "true" && value !== "false") throw new ThinktankError("BAD_REQUEST", `form field '${part.fieldname}' must be true or false, got '${String(part.value)}'`);
      flags[part.fieldname] = value === "true";
    } else {
      throw new ThinktankError("BAD_REQUEST", `unexpected form field '${part.fieldname}': only 'file', 'overwrite', 'strict' and 'trusted' are read`);
    }
  }
  if (!data) throw new ThinktankError("BAD_REQUEST", "multipart upload without field 'file': send the .skill or .zip archive as 'file'");
  return { source: { kind: "archive", data }, overwrite: flags.overwrite, strict: flags.strict, trusted: flags.trusted };
}

/** A skill with the script tools it brings (what GET /api/skills/:name and the install answer show). */
async function skillDetail(skill: Skill, listing: CodeListing): Promise<ReturnType<typeof toSkillJson> & { script_tools: unknown[] }> {
  const { script_tools: scriptTools, problems } = await listing.skill(skill);
  const json = toSkillJson(skill);
  return { ...json, warnings: [...json.warnings, ...problems], script_tools: scriptTools };
}

/** The answer is the caller's view: a cache must not hand one caller's answer to another. */
function varyByCaller(reply: FastifyReply): void {
  reply.header("vary", "Authorization, X-API-Key");
}

function setEtag(reply: FastifyReply, etag: string | undefined): void {
  if (etag) reply.header("etag", etag);
}

export default skillsRoutes;
