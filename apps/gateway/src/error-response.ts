import { httpStatusFor, isThinktankError, maxPathParamLength } from "@thinktank/core";
import type { ErrorCode } from "@thinktank/core";

/** The body of every error answer. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/** Shared JSON Schema of ErrorBody (registered once; routes refer to it as `ErrorResponse#`). */
export const errorResponseSchema = {
  $id: "ErrorResponse",
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: "Stable error code clients match on, e.g. MCP_SERVER_NOT_FOUND." },
    message: { type: "string" },
    details: { type: "object", additionalProperties: true },
  },
} as const;

/** `{ 400: ErrorResponse, 401: ErrorResponse, ... }` for a route's `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, { $ref: string }> {
  return Object.fromEntries(statuses.map((status) => [status, { $ref: "ErrorResponse#" }]));
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: { instancePath?: string; message?: string; keyword?: string; params?: Record<string, unknown> }[];
  validationContext?: string;
}

/**
 * Maps anything a request can throw to a status and a body. Our own errors keep their code;
 * Fastify's are translated; anything else is an internal error whose details stay in the log.
 */
export function toErrorResponse(error: unknown, requestId: string): { status: number; body: ErrorBody; internal: boolean } {
  if (isThinktankError(error)) return answer(error.code, error.message, error.details ? { ...error.details } : undefined);
  const fastifyError = (error ?? {}) as FastifyLikeError;
  if (Array.isArray(fastifyError.validation)) {
    const part = fastifyError.validationContext ?? "body";
    const problems = fastifyError.validation.map((item) => {
      const segments = (item.instancePath ?? "").split("/").filter(Boolean);
      if (item.keyword === "required" && typeof item.params?.missingProperty === "string") segments.push(item.params.missingProperty);
      if (item.keyword === "additionalProperties" && typeof item.params?.additionalProperty === "string") segments.push(item.params.additionalProperty);
      const path = [part, ...segments].join(".");
      const allowed = item.keyword === "enum" && Array.isArray(item.params?.allowedValues) ? ` (${item.params.allowedValues.map((v) => JSON.stringify(v)).join(", ")})` : "";
      return { path, message: `${item.message ?? "is not valid"}${allowed}` };
    });
    return answer("VALIDATION_FAILED", problems.map((p) => `${p.path}: ${p.message}`).join("; "), { problems });
  }
  switch (fastifyError.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return answer("INVALID_JSON", "the request body is not valid JSON");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return answer("INVALID_JSON", "the request body is empty but its content-type says JSON");
    case "FST_ERR_MAX_PARAM_LENGTH":
      return answer("VALIDATION_FAILED", `a path segment is longer than ${maxPathParamLength} characters`);
    // Multipart counts (build-app.ts): 413 as before, with what was counted rather than the size limit.
    case "FST_FILES_LIMIT":
      return answer("PAYLOAD_TOO_LARGE", "the upload holds more than one file: send one archive (.zip, .tar.gz or .skill) as the only file field");
    case "FST_PARTS_LIMIT":
    case "FST_FIELDS_LIMIT":
      return answer("PAYLOAD_TOO_LARGE", `the upload has too many ${fastifyError.code === "FST_PARTS_LIMIT" ? "parts" : "form fields"}: send one archive and the few fields the route names`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return answer("UNSUPPORTED_MEDIA_TYPE", `${fastifyError.message ?? "unsupported media type"}: send application/json (or multipart/form-data where a route takes uploads)`);
  }
  const status = fastifyError.statusCode;
  if (status === 413) return answer("PAYLOAD_TOO_LARGE", `${fastifyError.message ?? "the request is too large"} (the limit is gateway.max_upload_mb in config.yaml)`);
  if (status === 415) return answer("UNSUPPORTED_MEDIA_TYPE", fastifyError.message ?? "unsupported media type");
  if (status === 404) return answer("NOT_FOUND", fastifyError.message ?? "not found");
  if (typeof status === "number" && status >= 400 && status < 500) return answer("BAD_REQUEST", fastifyError.message ?? "bad request");
  return { ...answer("INTERNAL", `internal error; the gateway log has the details (request id ${requestId})`), internal: true };
}

function answer(code: ErrorCode, message: string, details?: Record<string, unknown>): { status: number; body: ErrorBody; internal: boolean } {
  return { status: httpStatusFor(code), body: details ? { code, message, details } : { code, message }, internal: false };
}
