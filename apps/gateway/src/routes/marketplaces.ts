import { ThinktankError } from "@thinktank/core";
import { pluginNamePattern, type PluginManager } from "@thinktank/plugins";
import { routeCodeListing } from "../code-listing.js";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

const nameParams = { type: "object", required: ["name"], properties: { name: { type: "string", pattern: pluginNamePattern } } } as const;
const anyObject = { type: "object", additionalProperties: true } as const;
const marketplaceSchema = {
  type: "object",
  required: ["name", "source", "plugins", "problems"],
  properties: {
    name: { type: "string" },
    source: { ...anyObject, description: "`{ source: github | git | npm | url | directory, ... }` as stored in extensions_config.json (credentials never)" },
    pinned: { ...anyObject, description: "What was fetched: `commit` (git), `version` and `integrity` (npm), `sha256` (a marketplace.json URL)" },
    previous: { ...anyObject, description: "After an update: what was pinned before" },
    updated_at: { type: "string" },
    description: { type: "string" },
    owner: anyObject,
    plugins: { type: "integer", description: "Entries in its marketplace.json" },
    problems: { type: "array", items: { type: "string" } },
  },
} as const;
const addBody = {
  type: "object",
  required: ["source"],
  additionalProperties: false,
  properties: {
    source: {
      description:
        "`owner/repo` (GitHub, optionally `#ref`), a git URL (https, ssh, git; http when plugins.fetch.allow_http), `npm:<package>[@version]`, the URL of a marketplace.json, a local path, or an object `{ source: github | git | npm | url | directory, repo | url | package | path, ref?, path?, version? }`",
      anyOf: [{ type: "string", minLength: 1, maxLength: 2048 }, anyObject],
    },
    name: { type: "string", pattern: pluginNamePattern, description: "Default: the name in its marketplace.json" },
  },
} as const;
const fetchErrors = errorResponses(400, 401, 404, 409, 413, 415, 422, 500, 502, 503, 504);

/** /api/marketplaces: plugin marketplaces added by name (fetched from GitHub, git, npm, a URL or a local folder), browsed, updated, removed. */
const marketplacesRoutes: RoutePlugin = async (app, { config, deps }) => {
  const plugins = (): PluginManager => {
    if (!deps.plugins) throw new ThinktankError("NOT_CONFIGURED", "the plugins service is not configured in this gateway");
    return deps.plugins;
  };
  // A preview lists its skills' script tools as an installed plugin's detail does.
  const code = routeCodeListing(config, deps);
  app.addHook("onClose", () => code.close());

  app.get(
    "/api/marketplaces",
    { config: { access: "public" }, schema: { summary: "List the marketplaces added", tags: ["marketplaces"], response: { 200: { type: "object", required: ["marketplaces"], properties: { marketplaces: { type: "array", items: marketplaceSchema } } }, ...errorResponses(500) } } },
    async () => ({ marketplaces: await plugins().listMarketplaces() }),
  );

  app.post<{ Body: { source: unknown; name?: string } }>(
    "/api/marketplaces",
    {
      config: { access: "admin", audit: "marketplace.add" },
      schema: {
        summary: "Add a marketplace: fetch it (shallow and pinned), check it, and keep it under `marketplaces`",
        description:
          "Git sources are fetched with the git CLI at depth 1 and pinned to the exact commit; npm sources over the registry protocol with dist.integrity verified; both within plugins.fetch.timeout_seconds and max_mb and the archive rules. Values that could reach git or npm as options or commands (a leading '-', `ext::` URLs, '..') are 400 INVALID_SOURCE. 409 MARKETPLACE_NAME_CONFLICT when the name is taken.",
        tags: ["marketplaces"],
        body: addBody,
        response: { 201: marketplaceSchema, ...fetchErrors },
      },
    },
    async (request, reply) => {
      const added = await plugins().addMarketplace(request.body.source, request.body.name);
      request.log.info({ marketplace: added.name, source: added.source.source, pinned: added.pinned }, "marketplace added");
      request.audit = { target: added.name, detail: { source: added.source.source } };
      return reply.status(201).send(added);
    },
  );

  app.get<{ Params: { name: string } }>(
    "/api/marketplaces/:name/plugins",
    {
      config: { access: "public" },
      schema: {
        summary: "The plugins a marketplace offers: name, description, version, source type, and whether each is installed",
        tags: ["marketplaces"],
        params: nameParams,
        response: {
          200: {
            type: "object",
            required: ["marketplace", "plugins"],
            properties: {
              marketplace: { type: "string" },
              plugins: {
                type: "array",
                items: {
                  type: "object",
                  required: ["name", "source_type", "installed"],
                  properties: { name: { type: "string" }, description: { type: "string" }, version: { type: "string" }, source_type: { type: "string" }, installed: { type: "boolean" }, installed_version: { type: "string" } },
                },
              },
            },
          },
          ...errorResponses(400, 404, 422, 500),
        },
      },
    },
    async (request) => plugins().marketplacePlugins(request.params.name),
  );

  app.get<{ Params: { name: string; plugin: string } }>(
    "/api/marketplaces/:name/plugins/:plugin",
    {
      config: { access: "public" },
      schema: {
        summary: "One plugin of a marketplace before it is installed: what it brings (skills, commands, agents, hooks, servers) and its projected context cost",
        description:
          "For a source inside the marketplace's copy (a relative path) the plugin is read there as an install would read it, nothing fetched or run: `preview` is the plugin's detail as GET /api/plugins/:name shows it (untrusted, as a new install is) with `script_tools` and `context_cost`, the tokens it would add in the full and the compact listing. A remote source (github, url, npm, ...) is fetched only at install: `note` says so.",
        tags: ["marketplaces"],
        params: { type: "object", required: ["name", "plugin"], properties: { name: { type: "string", pattern: pluginNamePattern }, plugin: { type: "string", minLength: 1, maxLength: 200 } } },
        response: {
          200: {
            type: "object",
            required: ["marketplace", "entry"],
            properties: { marketplace: { type: "string" }, entry: anyObject, preview: { ...anyObject, description: "The plugin's detail as it would install" }, note: { type: "string" } },
          },
          ...errorResponses(400, 404, 422, 500),
        },
      },
    },
    async (request) => {
      const { skills, ...found } = await plugins().marketplacePlugin(request.params.name, request.params.plugin);
      return found.preview ? { ...found, preview: await code.listing.plugin(found.preview, skills ?? []) } : found;
    },
  );

  app.post<{ Params: { name: string } }>(
    "/api/marketplaces/:name/update",
    {
      config: { access: "admin", audit: "marketplace.update" },
      schema: {
        summary: "Fetch a marketplace again (its ref's newest commit, the package's version or tag) and swap its copy in atomically",
        tags: ["marketplaces"],
        params: nameParams,
        response: { 200: marketplaceSchema, ...fetchErrors },
      },
    },
    async (request) => {
      const updated = await plugins().updateMarketplace(request.params.name);
      request.log.info({ marketplace: updated.name, pinned: updated.pinned }, "marketplace updated");
      return updated;
    },
  );

  app.delete<{ Params: { name: string } }>(
    "/api/marketplaces/:name",
    {
      config: { access: "admin", audit: "marketplace.remove" },
      schema: {
        summary: "Remove a marketplace (plugins installed from it stay installed, but no longer update)",
        tags: ["marketplaces"],
        params: nameParams,
        response: { 204: { type: "null", description: "Removed" }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      await plugins().removeMarketplace(request.params.name);
      request.log.info({ marketplace: request.params.name }, "marketplace removed");
      return reply.status(204).send();
    },
  );
};

export default marketplacesRoutes;
