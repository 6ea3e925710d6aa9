import { jsonNestingLimits, jsonTextNesting, ThinktankError } from "@thinktank/core";
import type { FastifyInstance } from "fastify";

/**
 * The API's JSON body parser: Fastify's own (empty and malformed bodies, prototype poisoning), plus
 * one rule for both thread backends: no NUL character (U+0000) in any string or key. Postgres'
 * jsonb cannot hold one (it answered 500) while SQLite stored it; refusing at the edge answers the
 * same 400 VALIDATION_FAILED on both, before anything is stored or run. Registered in the API's own
 * plugin context, so /mcp (JSON-RPC, stores nothing) keeps Fastify's parser. A body nested deeper
 * than jsonNestingLimits.requestBody is refused the same way before parsing: a few thousand levels
 * overflowed the stack where it was stored (a 500) and in the run's later walks over it.
 */
export function useJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const limit = jsonNestingLimits.requestBody;
    if (jsonTextNesting(body as string, limit) > limit) return done(new ThinktankError("VALIDATION_FAILED", `the JSON body nests deeper than ${limit} levels`), undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      // JSON text can hold a NUL only as the escape \u0000: without one the walk is skipped.
      const where = (body as string).includes("\\u0000") ? nulCharacterAt(value) : undefined;
      if (where === undefined) return done(null, value);
      done(new ThinktankError("VALIDATION_FAILED", `${where} contains a NUL character (U+0000), which is not accepted`, { details: { field: where } }), undefined);
    });
  });
}

interface Visit {
  readonly value: unknown;
  readonly parent: Visit | undefined;
  readonly key: string | number | undefined;
}

/**
 * Where the first string or key holding U+0000 is (`body.input.messages[0].content`, or `a key in
 * body.metadata`); undefined when there is none. Iterative, one visit per value, and the path is
 * built only for the value found, so the cost stays linear in the body however deep it nests.
 */
export function nulCharacterAt(body: unknown): string | undefined {
  const stack: Visit[] = [{ value: body, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const { value } = visit;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return pathOf(visit);
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], parent: visit, key: index });
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.some((key) => key.includes("\u0000"))) return `a key in ${pathOf(visit)}`;
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        stack.push({ value: (value as Record<string, unknown>)[key], parent: visit, key });
      }
    }
  }
  return undefined;
}

function pathOf(visit: Visit): string {
  const parts: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) {
    parts.push(typeof at.key === "number" ? `[${at.key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(at.key as string) ? `.${at.key}` : `[${JSON.stringify(at.key)}]`);
  }
  return `body${parts.reverse().join("")}`;
}
