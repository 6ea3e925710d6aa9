import fs from "node:fs";
import path from "node:path";
import type { ErrorCode } from "@thinktank/core";
import { reservedSandboxPaths } from "../sandbox-paths.js";
import type { SandboxLanguage, SandboxLimits, SandboxMount, SandboxRequest } from "../sandbox-types.js";
import { resolveLimits } from "./resolve-limits.js";

/** A request after validation: paths resolved to real absolute paths, limits complete. */
export interface ValidRequest {
  readonly language: SandboxLanguage;
  readonly source: string;
  readonly workspaceDir: string;
  readonly mounts: readonly SandboxMount[];
  readonly env: Readonly<Record<string, string>>;
  readonly bridgeSocket: string | undefined;
  readonly bridgeConnection: SandboxRequest["bridgeConnection"];
  readonly bridgeToken: string | undefined;
  readonly timeoutMs: number;
  readonly stdin: Buffer;
  readonly limits: SandboxLimits;
}

export interface RequestBounds {
  readonly defaultLimits: SandboxLimits;
  /** @default config.code_execution.timeout_seconds × 1000 */
  readonly defaultTimeoutMs: number;
  /** @default config.code_execution.max_timeout_seconds × 1000 */
  readonly maxTimeoutMs: number;
}

type Validation = { ok: true; request: ValidRequest } | { ok: false; code: ErrorCode; message: string };

const languages: readonly SandboxLanguage[] = ["javascript", "python", "shell"];
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks everything about a request before any process starts, with expected-vs-got messages. */
export function validateRequest(request: SandboxRequest, bounds: RequestBounds): Validation {
  const bad = (message: string, code: ErrorCode = "VALIDATION_FAILED"): Validation => ({ ok: false, code, message });
  if (typeof request !== "object" || request === null) return bad("request: expected an object");
  if (!languages.includes(request.language)) return bad(`language: expected one of ${languages.join(", ")}, got ${JSON.stringify(request.language)}`);
  if (typeof request.source !== "string") return bad(`source: expected a string, got ${typeof request.source}`);
  if (request.source.includes("\0")) return bad("source: must not contain NUL characters");

  const workspace = existingPath(request.workspaceDir, "workspaceDir");
  if ("problem" in workspace) return bad(workspace.problem, "INVALID_PATH");
  if (!workspace.stats.isDirectory()) return bad(`workspaceDir: expected a folder, got a file: ${request.workspaceDir}`, "INVALID_PATH");

  const mounts: SandboxMount[] = [];
  for (const [index, mount] of (request.mounts ?? []).entries()) {
    const source = existingPath(mount?.hostPath, `mounts[${index}].hostPath`);
    if ("problem" in source) return bad(source.problem, "INVALID_PATH");
    const target = mount.sandboxPath;
    if (typeof target !== "string" || !path.isAbsolute(target) || path.posix.normalize(target) !== target || target === "/" || target.endsWith("/")) {
      return bad(`mounts[${index}].sandboxPath: expected a normalized absolute path such as /mnt/code-api, got ${JSON.stringify(target)}`, "INVALID_PATH");
    }
    const clash = reservedSandboxPaths.find((reserved) => target === reserved || target.startsWith(`${reserved}/`) || reserved.startsWith(`${target}/`));
    if (clash) return bad(`mounts[${index}].sandboxPath: ${target} overlaps ${clash}, which the sandbox reserves`, "INVALID_PATH");
    if (mounts.some((other) => other.sandboxPath === target)) return bad(`mounts[${index}].sandboxPath: ${target} is mounted twice`, "INVALID_PATH");
    const writable: unknown = mount.writable;
    if (writable !== undefined && typeof writable !== "boolean") return bad(`mounts[${index}].writable: expected true or false, got ${JSON.stringify(writable)}`);
    if (writable && !source.stats.isDirectory()) return bad(`mounts[${index}].hostPath: a writable mount must be a folder, got a file: ${mount.hostPath}`, "INVALID_PATH");
    mounts.push(writable ? { hostPath: source.real, sandboxPath: target, writable: true } : { hostPath: source.real, sandboxPath: target });
  }

  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.env ?? {})) {
    if (!variableName.test(name)) return bad(`env: ${JSON.stringify(name)} is not a valid variable name (expected [A-Za-z_][A-Za-z0-9_]*)`);
    if (typeof value !== "string") return bad(`env.${name}: expected a string, got ${typeof value}`);
    if (value.includes("\0")) return bad(`env.${name}: must not contain NUL characters`);
    env[name] = value;
  }

  let bridgeSocket: string | undefined;
  if (request.bridgeSocket !== undefined) {
    const socket = existingPath(request.bridgeSocket, "bridgeSocket");
    if ("problem" in socket) return bad(socket.problem, "INVALID_PATH");
    if (!socket.stats.isSocket()) return bad(`bridgeSocket: expected a Unix socket, got another kind of file: ${request.bridgeSocket}`, "INVALID_PATH");
    bridgeSocket = socket.real;
  }
  if (request.bridgeToken !== undefined && (typeof request.bridgeToken !== "string" || request.bridgeToken.includes("\0"))) {
    return bad("bridgeToken: expected a string without NUL characters");
  }

  const timeoutMs = request.timeoutMs ?? bounds.defaultTimeoutMs;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > bounds.maxTimeoutMs) {
    return bad(`timeoutMs: expected a number of milliseconds in (0, ${bounds.maxTimeoutMs}] (config.code_execution.max_timeout_seconds), got ${JSON.stringify(request.timeoutMs)}`);
  }

  const limits = resolveLimits(bounds.defaultLimits, request.limits);
  if ("problem" in limits) return bad(limits.problem);

  const stdin = request.stdin === undefined ? Buffer.alloc(0) : typeof request.stdin === "string" ? Buffer.from(request.stdin) : Buffer.from(request.stdin);
  return {
    ok: true,
    request: {
      language: request.language,
      source: request.source,
      workspaceDir: workspace.real,
      mounts,
      env,
      bridgeSocket,
      bridgeConnection: bridgeSocket === undefined ? undefined : request.bridgeConnection,
      bridgeToken: request.bridgeToken,
      timeoutMs,
      stdin,
      limits: limits.limits,
    },
  };
}

function existingPath(value: unknown, field: string): { real: string; stats: fs.Stats } | { problem: string } {
  if (typeof value !== "string" || !path.isAbsolute(value)) return { problem: `${field}: expected an absolute host path, got ${JSON.stringify(value)}` };
  try {
    const real = fs.realpathSync(value);
    return { real, stats: fs.statSync(real) };
  } catch {
    return { problem: `${field}: ${value} does not exist` };
  }
}
