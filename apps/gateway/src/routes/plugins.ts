import { ThinktankError } from "@thinktank/core";
import { pluginNamePattern, type PluginDetailView, type PluginManager } from "@thinktank/plugins";
import { listingCostJsonSchema, scriptToolListingSchema } from "@thinktank/skills";
import type { FastifyRequest } from "fastify";
import { routeCodeListing, type CodeListing, type PluginCodeView } from "../code-listing.js";
import type { GatewayDeps } from "../gateway-deps.js";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

const nameParams = { type: "object", required: ["name"], properties: { name: { type: "string", pattern: pluginNamePattern } } } as const;
const anyObject = { type: "object", additionalProperties: true } as const;
const list = (items: object) => ({ type: "array", items }) as const;

const summarySchema = {
  type: "object",
  required: ["name", "enabled", "trusted", "scripts_approved", "state", "counts", "problems"],
  properties: {
    name: { type: "string" },
    version: { type: "string" },
    description: { type: "string" },
    enabled: { type: "boolean" },
    trusted: { type: "boolean", description: "An administrator marked the plugin trusted (install with trusted, or PUT): its skills' script tools run as trusted code instead of in the sandbox" },
    scripts_approved: { type: "boolean", description: "Its skills' script tools run without asking first, in every thread" },
    state: { type: "string", enum: ["enabled", "disabled", "invalid"], description: "invalid: installed but with errors, so the agent leaves it out" },
    counts: anyObject,
    problems: anyObject,
  },
} as const;

const detailProperties = {
  name: { type: "string" },
  version: { type: "string" },
  description: { type: "string" },
  enabled: { type: "boolean" },
  trusted: summarySchema.properties.trusted,
  scripts_approved: summarySchema.properties.scripts_approved,
  state: { type: "string" },
  manifest: anyObject,
  manifestSource: { type: "string", enum: ["file", "folder"] },
  skills: list(anyObject),
  commands: list(anyObject),
  agents: list(anyObject),
  hooks: {
    type: "object",
    properties: {
      executed: { type: "boolean", description: "Whether any of its hooks runs here" },
      note: { type: "string" },
      items: list({ ...anyObject, description: "The matcher groups as written (secret-looking values masked)" }),
      handlers: list({
        type: "object",
        required: ["event", "matcher", "type", "command", "timeout", "sandboxed", "runs"],
        additionalProperties: false,
        description: "Each hook, shown before it runs: command hooks of the events this agent fires run in the sandbox; others, and all under plugins.host_programs: deny or a sandbox backend without a shell, do not (reason)",
        properties: {
          event: { type: "string" },
          matcher: { type: ["string", "null"], description: "null: every tool (or source)" },
          type: { type: "string", description: "command, prompt, agent, ... as written" },
          command: { type: ["string", "null"], description: "The command line as written (${CLAUDE_PLUGIN_ROOT} unexpanded); null for other types" },
          timeout: { type: ["number", "null"], description: "Seconds (its own timeout, else 60); null for other types" },
          sandboxed: { type: "boolean", enum: [true] },
          runs: { type: "boolean" },
          reason: { type: "string" },
        },
      }),
    },
  },
  script_tools: list({ ...scriptToolListingSchema, description: "Every script tool of its skills' tools.json, shown before it runs" }),
  servers: list({ ...anyObject, description: "`<plugin>:<server>` with transport, status (available | unavailable | shadowed | denied), reason, the entry as written with secrets masked, and for a stdio server `runs`: the command, arguments and working folder it runs on this host" }),
  problems: list(anyObject),
  context_cost: { ...listingCostJsonSchema, description: `What the plugin adds to what the model is sent once enabled: ${listingCostJsonSchema.description}` },
  rollback: { type: "object", properties: { version: { type: "string" } }, description: "After an update: the version POST /api/plugins/:name/rollback restores" },
  versions: {
    ...anyObject,
    description:
      "For a plugin installed from a marketplace added by name: `marketplace`, `plugin`, `installed` and `available` (`version`, `commit` or `integrity`, as far as the marketplace's copy tells without fetching) and `update_available`",
  },
} as const;

const detailSchema = { type: "object", required: ["name", "enabled", "trusted", "scripts_approved", "state", "manifest", "skills", "commands", "agents", "hooks", "servers", "script_tools"], properties: detailProperties } as const;
const installSchema = {
  type: "object",
  required: [...detailSchema.required, "source", "warnings"],
  properties: { ...detailProperties, source: anyObject, warnings: list(anyObject), previous: { ...anyObject, description: "After an update: the version replaced" } },
} as const;

const installBodyDescription =
  "JSON `{ path }` (a folder or .zip on the server) or `{ marketplace, plugin }` (the name of a marketplace added with POST /api/marketplaces, or the path of a marketplace.json or its folder; and an entry name), each with an optional `strict` and `trusted`; or multipart/form-data with the zip in the field `file` and optional fields `strict` and `trusted`. The plugin is untrusted (its skills' script tools run in the sandbox) unless `trusted` is true; a new install forgets any trust an earlier plugin of that name had. The plugin is read as Claude Code reads it: departures from the Agent Skills spec, frontmatter YAML a strict parser refuses (read line by line), links inside the tree to files or folders inside it (copied as their target) and a `skills` path naming one skill folder are `warnings` (marked `lenient`); `strict=true` (body or query) refuses them. Links leaving the tree, special files, bombs and oversize archives are always refused";

/** /api/plugins: Claude Code plugins (list, describe, install, enable/disable, uninstall). */
const pluginsRoutes: RoutePlugin = async (app, { config, deps }) => {
  const plugins = (): PluginManager => {
    if (!deps.plugins) throw new ThinktankError("NOT_CONFIGURED", "the plugins service is not configured in this gateway");
    return deps.plugins;
  };
  app.addHook("onClose", async () => deps.plugins?.close());
  const code = routeCodeListing(config, deps);
  app.addHook("onClose", () => code.close());
  const withCode = <T extends PluginDetailView>(detail: T): Promise<PluginCodeView<T>> => pluginCode(detail, code.listing, deps);

  app.get(
    "/api/plugins",
    { config: { access: "public" }, schema: { summary: "List installed plugins", tags: ["plugins"], response: { 200: { type: "object", required: ["plugins"], properties: { plugins: list(summarySchema), revision: { type: "integer" } } }, ...errorResponses(500) } } },
    async () => plugins().list(),
  );

  app.get<{ Params: { name: string } }>(
    "/api/plugins/:name",
    {
      config: { access: "public" },
      schema: {
        summary: "One plugin: manifest, skills, commands, agents, hooks, MCP servers with status, and every script tool and hook it brings with where and whether it runs",
        tags: ["plugins"],
        params: nameParams,
        response: { 200: detailSchema, ...errorResponses(400, 404, 500) },
      },
    },
    async (request) => withCode(await plugins().get(request.params.name)),
  );

  app.get<{ Params: { name: string } }>(
    "/api/plugins/:name/commands",
    {
      config: { access: "public" },
      schema: {
        summary: "The slash commands of one plugin: its commands and user-invocable skills, as /<plugin>:<name>",
        tags: ["plugins"],
        params: nameParams,
        response: { 200: { type: "object", required: ["plugin", "enabled", "commands"], properties: { plugin: { type: "string" }, enabled: { type: "boolean" }, commands: list(anyObject) } }, ...errorResponses(400, 404, 500) },
      },
    },
    async (request) => plugins().commands(request.params.name),
  );

  app.post(
    "/api/plugins/install",
    {
      config: { access: "admin", audit: "plugin.install", auditFields: ["path", "marketplace", "plugin", "trusted"] },
      schema: {
        summary: "Install a plugin from an uploaded zip, a server path, or a marketplace entry",
        description: `${installBodyDescription}. Answers 201 with the plugin, enabled. Every marketplace source type but command is fetched: relative paths, github, url and git-subdir (git, shallow, pinned to the exact commit), npm (dist.integrity verified) and archive (a .tar.gz or .zip over https, its sha256 checked when given); within plugins.fetch limits. A command source is refused (422 UNSUPPORTED_SOURCE): it would run a program on this host.`,
        tags: ["plugins"],
        consumes: ["application/json", "multipart/form-data"],
        querystring: { type: "object", additionalProperties: false, properties: { strict: { type: "boolean", description: "Refuse what only the lenient reading accepts" } } },
        body: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                description: "`{ path }` or `{ marketplace, plugin }`",
                properties: {
                  path: { type: "string", minLength: 1, description: "A plugin folder or .zip on the gateway's machine" },
                  marketplace: { type: "string", minLength: 1, description: "The name of a marketplace added with POST /api/marketplaces, or the path of a marketplace.json or its folder" },
                  plugin: { type: "string", minLength: 1, description: "The entry's name in the marketplace" },
                  strict: { type: "boolean" },
                  trusted: { type: "boolean", default: false, description: "Record the plugin as trusted: its skills' script tools run as trusted code instead of in the sandbox" },
                },
              },
            },
            "multipart/form-data": {
              schema: {
                type: "object",
                nullable: true,
                properties: { file: { type: "string", description: "the plugin zip (binary)" }, strict: { type: "string", enum: ["true", "false"] }, trusted: { type: "string", enum: ["true", "false"] } },
              },
            },
          },
        },
        response: { 201: installSchema, ...errorResponses(400, 401, 404, 409, 413, 415, 422, 500, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const strict = (request.query as { strict?: boolean }).strict ?? false;
      const result = await withCode(request.isMultipart() ? await installUpload(request, plugins(), strict) : await installJson(request.body, plugins(), strict));
      request.log.info({ plugin: result.name, source: result.source.type, trusted: result.trusted, script_tools: result.script_tools.length, hooks: result.hooks.handlers.length }, "plugin installed");
      request.audit = { target: result.name, detail: { source: result.source.type, trusted: result.trusted } };
      return reply.status(201).send(result);
    },
  );

  app.post<{ Params: { name: string }; Querystring: { strict?: boolean } }>(
    "/api/plugins/:name/update",
    {
      config: { access: "admin", audit: "plugin.update" },
      schema: {
        summary: "Update a plugin to its marketplace's current version, swapped in atomically (the old version stays if anything fails)",
        description:
          "For a plugin installed from a marketplace added by name. Its entry is read from the marketplace's copy (POST /api/marketplaces/:name/update fetches the newest) and its source fetched again; the new version is validated like an install, then takes the old one's place in one step. 409 CONFLICT for a plugin installed from a path or upload.",
        tags: ["plugins"],
        params: nameParams,
        querystring: { type: "object", additionalProperties: false, properties: { strict: { type: "boolean" } } },
        response: { 200: installSchema, ...errorResponses(400, 401, 404, 409, 413, 422, 500, 502, 503, 504) },
      },
    },
    async (request) => {
      const result = await withCode(await plugins().update(request.params.name, { strict: request.query.strict ?? false }));
      request.log.info({ plugin: result.name, from: result.previous, to: result.versions?.installed }, "plugin updated");
      return result;
    },
  );

  app.post<{ Params: { name: string } }>(
    "/api/plugins/:name/rollback",
    {
      config: { access: "admin", audit: "plugin.rollback" },
      schema: {
        summary: "Roll a plugin back to the version its last update replaced (a second rollback undoes the first)",
        description:
          "An update keeps the version it replaces; this swaps it back in one step, with its marketplace record (what the next update fetches). Enablement, trust and script approval stay. 409 CONFLICT when no earlier version is kept (the plugin was never updated here).",
        tags: ["plugins"],
        params: nameParams,
        response: { 200: { ...detailSchema, properties: { ...detailProperties, previous: { type: "object", properties: { version: { type: "string" } }, description: "The version rolled back from" } } }, ...errorResponses(400, 401, 404, 409, 422, 500, 503) },
      },
    },
    async (request) => {
      const result = await withCode(await plugins().rollback(request.params.name));
      request.log.info({ plugin: result.name, from: result.previous, to: result.version }, "plugin rolled back");
      return result;
    },
  );

  app.put<{ Params: { name: string }; Body: { enabled?: boolean; trusted?: boolean; scripts_approved?: boolean } }>(
    "/api/plugins/:name",
    {
      config: { access: "admin", audit: "plugin.settings", auditFields: ["enabled", "trusted", "scripts_approved"] },
      schema: {
        summary: "Enable or disable a plugin (its skills, commands and servers come and go on the agent's next request), mark it trusted or approve its scripts",
        tags: ["plugins"],
        params: nameParams,
        body: {
          type: "object",
          minProperties: 1,
          additionalProperties: false,
          description: "Each field given is written to the plugin's entry in extensions_config.json",
          properties: {
            enabled: { type: "boolean" },
            trusted: { type: "boolean", description: "Its skills' script tools run as trusted code (on the host, confined) instead of in the sandbox; a skill's own setting wins" },
            scripts_approved: { type: "boolean", description: "Its skills' script tools run without asking first, in every thread" },
          },
        },
        response: { 200: detailSchema, ...errorResponses(400, 401, 404, 415, 500, 503) },
      },
    },
    async (request) => {
      const { enabled, trusted, scripts_approved: scriptsApproved } = request.body;
      const change = { ...(enabled === undefined ? {} : { enabled }), ...(trusted === undefined ? {} : { trusted }), ...(scriptsApproved === undefined ? {} : { scriptsApproved }) };
      // Unknown fields are dropped by the schema; a body left empty changes nothing and says so.
      if (Object.keys(change).length === 0) throw new ThinktankError("BAD_REQUEST", "send at least one of enabled, trusted, scripts_approved (true or false)");
      const detail = await withCode(await plugins().updateSettings(request.params.name, change));
      request.log.info({ plugin: request.params.name, ...request.body }, "plugin setting changed");
      return detail;
    },
  );

  app.delete<{ Params: { name: string } }>(
    "/api/plugins/:name",
    {
      config: { access: "admin", audit: "plugin.uninstall" },
      schema: { summary: "Uninstall a plugin", tags: ["plugins"], params: nameParams, response: { 204: { type: "null", description: "Removed" }, ...errorResponses(400, 401, 404, 500, 503) } },
    },
    async (request, reply) => {
      const removed = await plugins().uninstall(request.params.name);
      request.log.info({ plugin: removed.name, revision: removed.revision }, "plugin uninstalled");
      return reply.status(204).send();
    },
  );
};

/** The plugin's detail with its skills' script tools and its hooks as they would run here. */
async function pluginCode<T extends PluginDetailView>(detail: T, listing: CodeListing, deps: Pick<GatewayDeps, "skills">): Promise<PluginCodeView<T>> {
  const category = `plugin:${detail.name}`;
  const skills = deps.skills ? (await deps.skills.list()).skills.filter((skill) => skill.category === category) : [];
  return listing.plugin(detail, skills);
}

/** Reads the multipart form: the zip in the field `file`, and optional `strict` and `trusted` fields (before or after it). */
async function installUpload(request: FastifyRequest, plugins: PluginManager, strictQuery: boolean): ReturnType<PluginManager["installArchive"]> {
  let upload: { archive: Buffer; fileName: string } | undefined;
  const flags: { strict?: boolean; trusted?: boolean } = {};
  for await (const part of request.parts()) {
    if (part.type === "file") {
      if (part.fieldname !== "file") throw new ThinktankError("BAD_REQUEST", `the upload is in the field '${part.fieldname}'; send it in the field 'file'`);
      if (upload) throw new ThinktankError("BAD_REQUEST", "send one plugin zip per request");
      upload = { archive: await part.toBuffer(), fileName: part.filename };
    } else if (part.fieldname === "strict" || part.fieldname === "trusted") {
      const value = String(part.value).trim().toLowerCase();
      if (value !== "true" && value !== "false") throw new ThinktankError("BAD_REQUEST", `form field '${part.fieldname}' must be true or false, got '${String(part.value)}'`);
      flags[part.fieldname] = value === "true";
    } else {
      throw new ThinktankError("BAD_REQUEST", `unexpected form field '${part.fieldname}': only 'file', 'strict' and 'trusted' are read`);
    }
  }
  if (!upload) throw new ThinktankError("BAD_REQUEST", "the multipart request has no file: send the plugin zip in the field 'file'");
  return plugins.installArchive(upload.archive, upload.fileName, { strict: flags.strict ?? strictQuery, trusted: flags.trusted ?? false });
}

function installJson(body: unknown, plugins: PluginManager, strictQuery: boolean): ReturnType<PluginManager["installPath"]> {
  const problem = installBodyProblem(body);
  if (problem) throw new ThinktankError("VALIDATION_FAILED", `body: ${problem}`, { details: { problems: [{ path: "body", message: problem }] } });
  const request = body as { path?: string; marketplace?: string; plugin?: string; strict?: boolean; trusted?: boolean };
  const options = { strict: request.strict ?? strictQuery, trusted: request.trusted ?? false };
  if (request.path !== undefined) return plugins.installPath(request.path, options);
  return plugins.installFromMarketplace(request.marketplace!, request.plugin!, options);
}

function installBodyProblem(body: unknown): string | undefined {
  const expected = "send { \"path\": \"<folder or zip>\" }, { \"marketplace\": \"<marketplace.json or its folder>\", \"plugin\": \"<name>\" }, or a multipart upload in the field 'file'";
  if (!body || typeof body !== "object" || Array.isArray(body)) return expected;
  const { strict, trusted, ...fields } = body as Record<string, unknown>;
  if (strict !== undefined && typeof strict !== "boolean") return "'strict' must be true or false";
  if (trusted !== undefined && typeof trusted !== "boolean") return "'trusted' must be true or false";
  const keys = Object.keys(fields).sort().join(",");
  if (keys !== "path" && keys !== "marketplace,plugin") return `unexpected fields (${keys || "none"}): ${expected}`;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== "string" || value.trim() === "") return `'${key}' must be a non-empty string`;
  }
  return undefined;
}

export default pluginsRoutes;
