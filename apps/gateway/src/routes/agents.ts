import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { agentDetailJsonSchema, agentJsonSchema, agentProblemJsonSchema, toAgentDetailJson, toAgentJson, type AgentPackageSource, type AgentsService } from "@thinktank/subagents";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorResponses } from "../error-response.js";
import { gatewayAgentsService } from "../gateway-deps.js";
import type { RoutePlugin } from "../route-plugin.js";

const identityParams = { type: "object", required: ["identity"], properties: { identity: { type: "string", minLength: 1, maxLength: 300 } } } as const;
const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: { q: { type: "string", minLength: 1, maxLength: 2000, description: "Search names and descriptions (skill search's engine); the answer lists the matches, best first, with their score" } },
} as const;
const listSchema = {
  type: "object",
  required: ["agents", "problems"],
  properties: {
    query: { type: "string", description: "The search, when `q` was given" },
    agents: {
      type: "array",
      items: { ...agentJsonSchema, properties: { ...agentJsonSchema.properties, score: { type: "number", description: "With `q`: relevance, comparable only within one search" } } },
      description: "Every agent as it applies to the caller (with `q`: the matches, best first)",
    },
    problems: { type: "array", items: agentProblemJsonSchema, description: "Agent files skipped or read with warnings, and settings that could not be applied" },
  },
} as const;
const settingsBody = {
  type: "object",
  required: ["enabled"],
  additionalProperties: false,
  properties: { enabled: { type: "boolean", description: "An administrator's sets the default (`agents.<identity>`); a user's only their own view (`users.<id>.agents.<identity>`)" } },
} as const;
const installJsonBody = {
  type: "object",
  required: ["path"],
  additionalProperties: false,
  properties: {
    path: { type: "string", minLength: 1, description: "A .md agent file, a folder of them (or with an agents/ folder) or a .zip on the gateway's machine (relative paths resolve against config.yaml's folder)" },
    overwrite: { type: "boolean", default: false, description: "Replace installed agents of the same names" },
  },
} as const;
// The multipart parser leaves the body empty (validated as null); the fields are read from the stream.
const installMultipartBody = {
  type: "object",
  nullable: true,
  description: "Field `file`: one .md agent file, or a .zip of them. Field `overwrite`: true to replace installed agents of the same names.",
  properties: { file: { type: "string", description: "the agent file or archive (binary)" }, overwrite: { type: "string", enum: ["true", "false"] } },
} as const;
const installSchema = {
  type: "object",
  required: ["agents", "warnings"],
  properties: {
    agents: { type: "array", items: agentDetailJsonSchema, description: "The agents installed, as GET /api/agents/:identity shows them" },
    warnings: { type: "array", items: agentProblemJsonSchema, description: "What the lenient reading accepted (no description, unknown keys, ...)" },
  },
} as const;

/** GET /api/agents, GET/PUT/DELETE /api/agents/:identity, POST /api/agents/install: the service's operations, routed. */
const agentsRoutes: RoutePlugin = async (app, { config, deps }) => {
  const agents: AgentsService = deps.agents ?? gatewayAgentsService(config, deps.store, deps.plugins, app.log);
  // The service watches agent folders: stop the watchers with the app.
  app.addHook("onClose", async () => agents.close());

  app.get<{ Querystring: { q?: string } }>(
    "/api/agents",
    {
      config: { access: "public" },
      schema: {
        summary: "List every sub-agent as it applies to the caller (built-in, plugins', custom, and a user's own `user:` agents): `enabled` is theirs, `default_enabled` the administrator's; `?q=` searches names and descriptions",
        tags: ["agents"],
        querystring: listQuery,
        response: { 200: listSchema, ...errorResponses(400, 500) },
      },
    },
    async (request, reply) => {
      varyByCaller(reply);
      const snapshot = await agents.list(request.caller);
      if (request.query.q === undefined) return { agents: snapshot.agents.map(toAgentJson), problems: snapshot.problems };
      const hits = await agents.search(request.query.q, { viewer: request.caller });
      return { query: request.query.q, agents: hits.map(({ agent, score }) => ({ ...toAgentJson(agent), score })), problems: snapshot.problems };
    },
  );

  app.get<{ Params: { identity: string } }>(
    "/api/agents/:identity",
    {
      config: { access: "public" },
      schema: {
        summary: "One sub-agent by identity (`plugin:brand-voice:quality-assurance`) or unique name, with its system prompt and frontmatter",
        tags: ["agents"],
        params: identityParams,
        response: { 200: agentDetailJsonSchema, ...errorResponses(400, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      varyByCaller(reply);
      const agent = await agents.get(request.params.identity, request.caller);
      return toAgentDetailJson(agent, await agents.prompt(agent));
    },
  );

  app.put<{ Params: { identity: string }; Body: { enabled: boolean } }>(
    "/api/agents/:identity",
    {
      config: { access: "user", audit: "agent.settings", auditFields: ["enabled"] },
      schema: {
        summary: "Enable or disable a sub-agent (written to extensions_config.json under its identity)",
        description:
          "An administrator's change sets the default for everyone (`agents.<identity>.enabled`). A user's changes only their own view (`users.<id>.agents.<identity>.enabled`): other users and the default are untouched. An agent of a disabled plugin stays off whatever is written.",
        tags: ["agents"],
        params: identityParams,
        body: settingsBody,
        response: { 200: agentJsonSchema, ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
      },
    },
    async (request) => {
      request.audit = { target: request.params.identity };
      const agent = await agents.setEnabled(request.params.identity, request.body.enabled, request.caller);
      request.audit = { target: agent.identity };
      request.log.info({ agent: agent.identity, enabled: agent.enabled }, "agent setting changed");
      return toAgentJson(agent);
    },
  );

  app.delete<{ Params: { identity: string } }>(
    "/api/agents/:identity",
    {
      config: { access: "user", audit: "agent.delete" },
      schema: {
        summary: "Delete an installed agent: administrators a `custom:` agent, a user only their own `user:` agents (built-in and plugin agents answer 403)",
        tags: ["agents"],
        params: identityParams,
        response: { 204: { type: "null", description: "Deleted" }, ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
      },
    },
    async (request, reply) => {
      request.audit = { target: request.params.identity };
      const agent = await agents.remove(request.params.identity, request.caller);
      request.audit = { target: agent.identity };
      request.log.info({ agent: agent.identity }, "agent deleted");
      return reply.status(204).send();
    },
  );

  app.post<{ Body: { path: string; overwrite?: boolean } | undefined }>(
    "/api/agents/install",
    {
      config: { access: "user", audit: "agent.install", auditFields: ["path"] },
      schema: {
        summary: "Install agent files into agents/custom from an upload (multipart field `file`: one .md agent file or a .zip of them) or a path on the server (JSON `{ path }`, administrators); a user's upload becomes their own `user:<name>` agents",
        description:
          "A zip is checked entry by entry (paths, links, devices, sizes counted while extracting, compression ratio); its agents are the .md files of its agents/ folder, else of its top. Each file is read as the agent server reads it: departures from Claude Code's format (no description, unknown keys, YAML read line by line) are `warnings`; a file that cannot be used (no description anywhere, a name that is not a usable name, frontmatter past a parsing bound, not a .md file) refuses the whole install with its code, and nothing is kept. An agent already installed under a name is 409 AGENT_NAME_CONFLICT unless `overwrite`. A user (role `user`) uploads only: the agents go to their own folder, visible to them alone.",
        tags: ["agents"],
        body: { content: { "application/json": { schema: installJsonBody }, "multipart/form-data": { schema: installMultipartBody } } },
        response: { 201: installSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503) },
      },
    },
    async (request, reply) => {
      const admin = request.caller?.role === "admin";
      // A path names the gateway's own files: a user uploads.
      if (!admin && !request.isMultipart()) throw new ThinktankError("FORBIDDEN", "installing from a path on the gateway's machine is an administrator's decision: upload the agent file or a zip of them (multipart field `file`)", { details: { fields: ["path"] } });
      const { source, overwrite } = request.isMultipart() ? await readUpload(request) : fromJson(request.body, config.base_dir);
      const installed = await agents.install(source, { overwrite, viewer: request.caller });
      const details = await Promise.all(installed.map(async ({ agent }) => toAgentDetailJson(agent, await agents.prompt(agent))));
      request.audit = { target: installed.map(({ agent }) => agent.identity).join(",") };
      request.log.info({ agents: installed.map(({ agent }) => agent.identity) }, "agents installed");
      return reply.status(201).send({ agents: details, warnings: installed.flatMap(({ warnings }) => warnings) });
    },
  );
};

function fromJson(body: { path: string; overwrite?: boolean } | undefined, baseDir: string): { source: AgentPackageSource; overwrite: boolean } {
  if (!body) throw new ThinktankError("BAD_REQUEST", 'send a multipart upload with field `file`, or JSON { "path": "..." }');
  return { source: { kind: "path", path: path.resolve(baseDir, body.path) }, overwrite: body.overwrite ?? false };
}

/** Reads the multipart form: one `file` part and an optional `overwrite` field. */
async function readUpload(request: FastifyRequest): Promise<{ source: AgentPackageSource; overwrite: boolean }> {
  let file: { data: Buffer; fileName: string } | undefined;
  let overwrite = false;
  for await (const part of request.parts()) {
    if (part.type === "file") {
      if (part.fieldname !== "file") throw new ThinktankError("BAD_REQUEST", `unexpected file field '${part.fieldname}': send the agent file or zip as field 'file'`);
      if (file) throw new ThinktankError("BAD_REQUEST", "send one file per request (a zip holds several agents)");
      file = { data: await part.toBuffer(), fileName: part.filename };
    } else if (part.fieldname === "overwrite") {
      const value = String(part.value).trim().toLowerCase();
      if (value !== "true" && value !== "false") throw new ThinktankError("BAD_REQUEST", `form field 'overwrite' must be true or false, got '${String(part.value)}'`);
      overwrite = value === "true";
    } else {
      throw new ThinktankError("BAD_REQUEST", `unexpected form field '${part.fieldname}': only 'file' and 'overwrite' are read`);
    }
  }
  if (!file) throw new ThinktankError("BAD_REQUEST", "multipart upload without field 'file': send the .md agent file or a .zip as 'file'");
  return { source: { kind: "file", data: file.data, fileName: file.fileName }, overwrite };
}

/** The answer is the caller's view: a cache must not hand one caller's answer to another. */
function varyByCaller(reply: FastifyReply): void {
  reply.header("vary", "Authorization, X-API-Key");
}

export default agentsRoutes;
