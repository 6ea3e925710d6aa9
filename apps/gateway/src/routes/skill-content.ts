import { countTokens } from "@thinktank/mcp";
import { listingCost, listingCostJsonSchema, listSkillFiles, readSkillBody, type SkillsService } from "@thinktank/skills";
import type { FastifyInstance } from "fastify";
import { errorResponses } from "../error-response.js";

/** The most of a SKILL.md body an answer carries; the rest is cut (`body_truncated`). */
const maxBodyChars = 256 * 1024;

const contentSchema = {
  type: "object",
  required: ["identity", "body", "body_truncated", "files", "files_truncated", "context_cost"],
  properties: {
    identity: { type: "string" },
    body: { type: "string", description: "SKILL.md after its frontmatter, as the model reads it (Markdown, untrusted: render it sanitised)" },
    body_truncated: { type: "boolean", description: "The body was cut at 256 KiB" },
    files: {
      type: "array",
      description: "The files of the skill's folder, sorted; links are listed, never followed",
      items: { type: "object", required: ["path", "kind", "bytes"], properties: { path: { type: "string" }, kind: { type: "string", enum: ["file", "link"] }, bytes: { type: "integer" } } },
    },
    files_truncated: { type: "boolean", description: "More than 500 entries: the rest are left out" },
    context_cost: {
      type: "object",
      required: [...listingCostJsonSchema.required, "body_tokens"],
      description: `What the skill costs the model: ${listingCostJsonSchema.description}; body_tokens when the model reads its SKILL.md`,
      properties: { ...listingCostJsonSchema.properties, body_tokens: { type: "integer" } },
    },
  },
} as const;

/**
 * GET /api/skills/:name/content: a skill's SKILL.md body, its files and its context cost, as the
 * caller sees it (their own `user:` skills too). Registered by the skills routes, over their service.
 */
export function registerSkillContentRoute(app: FastifyInstance, skills: SkillsService): void {
  app.get<{ Params: { name: string }; Querystring: { category?: string } }>(
    "/api/skills/:name/content",
    {
      config: { access: "public" },
      schema: {
        summary: "A skill's SKILL.md body, its files and its context cost (tokens in the full and compact listing, and when read)",
        tags: ["skills"],
        params: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1, maxLength: 300 } } },
        querystring: { type: "object", additionalProperties: false, properties: { category: { type: "string" } } },
        response: { 200: contentSchema, ...errorResponses(400, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const skill = await skills.get(request.params.name, request.query.category, request.caller);
      reply.header("vary", "Authorization, X-API-Key");
      const body = readSkillBody(skill);
      const { files, truncated } = await listSkillFiles(skill.dir);
      const cost = listingCost({ skills: [skill] }, { countTokens });
      return {
        identity: skill.identity,
        body: body.length > maxBodyChars ? body.slice(0, maxBodyChars) : body,
        body_truncated: body.length > maxBodyChars,
        files,
        files_truncated: truncated,
        context_cost: { ...cost, body_tokens: countTokens(body) },
      };
    },
  );
}
