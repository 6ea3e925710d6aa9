import fs from "node:fs";
import { ThinktankError } from "@thinktank/core";
import { createToolBodySchema, maskToolDefinition, maxRecentExecutions, toolNamePattern, updateToolBodySchema } from "@thinktank/tools";
import type { ToolsService, ToolUpload } from "@thinktank/tools";
import type { FastifyRequest } from "fastify";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

const anyObject = { type: "object", additionalProperties: true } as const;
const nameParams = { type: "object", required: ["name"], properties: { name: { type: "string", pattern: toolNamePattern } } } as const;

const toolSchema = {
  type: "object",
  required: ["name", "description", "input_schema", "runtime", "script", "timeout", "parallel_capable", "enabled"],
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    input_schema: anyObject,
    output_schema: anyObject,
    runtime: { type: "string", enum: ["python", "node", "shell"] },
    script: { type: "string", description: "The script's file name under config.tools.scripts_dir" },
    timeout: { type: "number", description: "Seconds (the tool's, else config.tools.default_timeout_seconds)" },
    parallel_capable: { type: "boolean" },
    enabled: { type: "boolean" },
    env: { type: "object", additionalProperties: { type: "string" }, description: "Values masked as [redacted] (placeholders shown as written); sending [redacted] back in a PUT keeps the stored value" },
    network: { type: "array", items: { type: "string" }, description: "Hosts the script declares it reaches (host, host:port, *.domain[:port]); a registered tool is trusted and runs on the host" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

const problemSchema = { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } } as const;

const executionSchema = {
  type: "object",
  required: ["id", "tool", "started_at", "duration_ms", "status"],
  properties: {
    id: { type: "string" },
    tool: { type: "string" },
    arguments: { description: "As given, secrets redacted" },
    started_at: { type: "string" },
    duration_ms: { type: "number" },
    status: { type: "string", enum: ["success", "error"] },
    output: {},
    error: anyObject,
    source: { type: "string" },
    thread_id: { type: "string" },
    run_id: { type: "string" },
    sandboxed: { type: "boolean", description: "Where the script ran: true in the sandbox (an untrusted skill's tool), false on the host" },
    network: {
      type: "array",
      description: "A sandboxed script's connections through the egress proxy, allowed or refused (the first 50; absent when it made none)",
      items: {
        type: "object",
        required: ["kind", "host", "port", "allowed", "reason", "status", "bytes_sent", "bytes_received", "ms"],
        properties: {
          kind: { type: "string", enum: ["connect", "http"], description: "connect: a tunnel (HTTPS); http: one plain HTTP request" },
          host: { type: "string" },
          port: { type: "integer" },
          address: { type: "string", description: "The address connected to, or the one refused" },
          allowed: { type: "boolean" },
          reason: { type: "string", description: "The pattern that allowed it, or why it was refused" },
          status: { type: "integer", description: "The proxy's answer: 200 for a tunnel, the target's status, or the proxy's own 4xx/5xx" },
          bytes_sent: { type: "integer" },
          bytes_received: { type: "integer" },
          ms: { type: "number" },
        },
      },
    },
    network_omitted: { type: "integer", description: "Connections made beyond those listed in `network` (counted only)" },
  },
} as const;

const uploadDescription =
  "JSON: the definition with the script's source text in `script`. Or multipart/form-data: the field `definition` (that JSON without `script`) and the field `file` (the script).";

/** Bodies are checked by the tools library (ajv, strict: unknown fields are refused with their path), not coerced or pruned by Fastify. */
const libraryValidates = { validatorCompiler: () => (value: unknown) => ({ value }) };

/** /api/tools: registered script tools (list, describe, register, change, remove, call once, recent executions). */
const toolsRoutes: RoutePlugin = async (app, { deps }) => {
  const tools = (): ToolsService => {
    if (!deps.tools) throw new ThinktankError("NOT_CONFIGURED", "the tools service is not configured in this gateway");
    return deps.tools;
  };
  // A malformed registry stops the gateway here, at start-up, with every bad entry named.
  if (deps.tools) {
    const view = await deps.tools.check();
    for (const tool of view.tools.values()) {
      if (!fs.existsSync(deps.tools.registry.scripts.pathOf(tool.script))) app.log.warn({ tool: tool.name, script: tool.script }, "a registered tool's script is missing; its calls will fail until it is registered again");
    }
  }

  app.get(
    "/api/tools",
    {
      config: { access: "public" },
      schema: {
        summary: "List registered tools",
        description: "`problems` lists entries of extensions_config.json left out because they are malformed (hand edits).",
        tags: ["tools"],
        response: {
          200: { type: "object", required: ["tools", "revision"], properties: { tools: { type: "array", items: toolSchema }, revision: { type: "integer" }, problems: { type: "array", items: problemSchema } } },
          ...errorResponses(500),
        },
      },
    },
    async () => {
      const view = await tools().registry.view();
      return { tools: [...view.tools.values()].map(maskToolDefinition), revision: view.revision, problems: view.problems };
    },
  );

  app.get<{ Params: { name: string } }>(
    "/api/tools/:name",
    { config: { access: "public" }, schema: { summary: "One registered tool", tags: ["tools"], params: nameParams, response: { 200: toolSchema, ...errorResponses(400, 404, 500) } } },
    async (request) => maskToolDefinition(await tools().registry.get(request.params.name)),
  );

  app.post(
    "/api/tools",
    {
      ...libraryValidates,
      config: { access: "admin", audit: "tool.register" },
      schema: {
        summary: "Register a tool",
        description: `${uploadDescription} Answers 201 with the tool. The schemas must compile (ajv, strict), the name must be new (409 TOOL_NAME_CONFLICT) and not a built-in's; a bad field answers 400 with its path in details.problems and changes nothing. The agent offers the tool from its next request.`,
        tags: ["tools"],
        consumes: ["application/json", "multipart/form-data"],
        body: createToolBodySchema,
        response: { 201: toolSchema, ...errorResponses(400, 401, 409, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      const tool = await tools().registry.register(await readUpload(request));
      request.log.info({ tool: tool.name, runtime: tool.runtime, script: tool.script }, "tool registered");
      request.audit = { target: tool.name, detail: { runtime: tool.runtime } };
      return reply.status(201).send(maskToolDefinition(tool));
    },
  );

  app.put<{ Params: { name: string } }>(
    "/api/tools/:name",
    {
      ...libraryValidates,
      config: { access: "admin", audit: "tool.change" },
      schema: {
        summary: "Change a tool",
        description: `Any of the definition's fields: those given replace the current ones, the others stay (the script too, unless one is sent). ${uploadDescription} An invalid change answers 400 and changes nothing.`,
        tags: ["tools"],
        consumes: ["application/json", "multipart/form-data"],
        params: nameParams,
        body: updateToolBodySchema,
        response: { 200: toolSchema, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const tool = await tools().registry.update(request.params.name, await readUpload(request));
      request.log.info({ tool: tool.name, script: tool.script }, "tool changed");
      return maskToolDefinition(tool);
    },
  );

  app.delete<{ Params: { name: string } }>(
    "/api/tools/:name",
    {
      config: { access: "admin", audit: "tool.remove" },
      schema: { summary: "Remove a tool and its script", tags: ["tools"], params: nameParams, response: { 204: { type: "null", description: "Removed" }, ...errorResponses(400, 401, 404, 500, 503) } },
    },
    async (request, reply) => {
      const removed = await tools().registry.remove(request.params.name);
      request.log.info({ tool: removed.name }, "tool removed");
      return reply.status(204).send();
    },
  );

  app.post<{ Params: { name: string }; Body: { arguments?: Record<string, unknown> } }>(
    "/api/tools/:name/call",
    {
      config: { access: "user", audit: "tool.call" },
      schema: {
        summary: "Call a registered tool once (the console's try form), as the agent would",
        description:
          "The arguments are checked against the tool's input_schema before anything runs; the answer is the tool's response, `{ status: \"success\", data }` or `{ status: \"error\", error: { code, message } }` (a bad argument, a timeout, a disabled or unknown tool), always 200. The call is in the execution log with source `api`. Closing the request cancels the call.",
        tags: ["tools"],
        params: nameParams,
        body: { type: "object", additionalProperties: false, properties: { arguments: { type: "object", additionalProperties: true, description: "The tool's arguments; {} when left out" } } },
        response: {
          200: {
            type: "object",
            required: ["status"],
            properties: { status: { type: "string", enum: ["success", "error"] }, data: {}, error: { type: "object", additionalProperties: true, properties: { code: { type: "string" }, message: { type: "string" } } } },
          },
          ...errorResponses(400, 401, 413, 415, 500, 503),
        },
      },
    },
    async (request) => {
      const cancel = new AbortController();
      const stop = () => cancel.abort();
      request.raw.once("close", stop);
      try {
        const response = await tools().executor.invoke(request.params.name, request.body?.arguments ?? {}, { source: "api", signal: cancel.signal });
        request.audit = { target: request.params.name, outcome: response.status === "success" ? "ok" : "failed", ...(response.status === "error" ? { detail: { code: response.error.code } } : {}) };
        return response;
      } finally {
        request.raw.off("close", stop);
      }
    },
  );

  app.get<{ Params: { name: string }; Querystring: { limit?: number } }>(
    "/api/tools/:name/executions",
    {
      // The log holds arguments and outputs: administrators only.
      config: { access: "admin" },
      schema: {
        summary: "A tool's recent calls, newest first, from the execution log",
        description: "Also answers for built-in tools (web_search) and for removed tools whose calls are still in the log.",
        tags: ["tools"],
        params: nameParams,
        querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: maxRecentExecutions, default: 20 } } },
        response: { 200: { type: "object", required: ["tool", "executions"], properties: { tool: { type: "string" }, executions: { type: "array", items: executionSchema } } }, ...errorResponses(400, 500) },
      },
    },
    async (request) => {
      const executions = await tools().log.recent({ tool: request.params.name, limit: request.query.limit ?? 20 });
      return { tool: request.params.name, executions };
    },
  );
};

/** The definition and script of a POST or PUT: a JSON body, or multipart fields `definition` and `file`. */
async function readUpload(request: FastifyRequest): Promise<ToolUpload> {
  if (!request.isMultipart()) return { definition: request.body ?? {} };
  let definitionText: string | undefined;
  let file: ToolUpload["file"];
  for await (const part of request.parts()) {
    if (part.type === "file") {
      if (part.fieldname !== "file") {
        await part.toBuffer();
        throw badField(`the upload is in the field '${part.fieldname}'; send the script in the field 'file'`);
      }
      file = { content: await part.toBuffer(), fileName: part.filename };
    } else if (part.fieldname === "definition") {
      definitionText = String(part.value);
    } else {
      throw badField(`unexpected field '${part.fieldname}': send 'definition' (JSON) and 'file' (the script)`);
    }
  }
  let definition: unknown = {};
  if (definitionText !== undefined) {
    try {
      definition = JSON.parse(definitionText);
    } catch (error) {
      throw new ThinktankError("INVALID_JSON", `the field 'definition' is not valid JSON: ${(error as Error).message}`);
    }
  } else if (request.method === "POST") {
    throw badField("the multipart request has no field 'definition' (the tool's JSON definition without 'script')");
  }
  return file ? { definition, file } : { definition };
}

function badField(message: string): ThinktankError {
  return new ThinktankError("VALIDATION_FAILED", message, { details: { problems: [{ path: "body", message }] } });
}

export default toolsRoutes;
