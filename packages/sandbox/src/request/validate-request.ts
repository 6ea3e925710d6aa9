import fs from "node:fs";
import path from "node:path";
import type { ErrorCode } from "@thinktank/core";
import { reservedSandboxPaths } from "../sandbox-paths.js";
import type { SandboxLanguage, SandboxLimits, SandboxMount, SandboxRequest } from "../sandbox-types.js";
import { parseHostPattern } from "../network/host-pattern.js";
import { resolveLimits } from "./resolve-limits.js";

/** What a request runs: program text, or a script file (`entry`) at its sandbox path and at its real host path. */
export type ValidProgram = { readonly kind: "source"; readonly source: string } | { readonly kind: "entry"; readonly sandboxPath: string; readonly hostPath: string };

/** A request after validation: paths resolved to real absolute paths, limits complete. */
export interface ValidRequest {
  readonly language: SandboxLanguage;
  readonly program: ValidProgram;
  /** The workspace, or with `freshWorkspace` the folder each run's own workspace is made in. */
  readonly workspaceDir: string;
  readonly freshWorkspace: boolean;
  readonly mounts: readonly SandboxMount[];
  readonly env: Readonly<Record<string, string>>;
  readonly bridgeSocket: string | undefined;
  readonly bridgeConnection: SandboxRequest["bridgeConnection"];
  readonly bridgeToken: string | undefined;
  readonly timeoutMs: number;
  readonly stdin: Buffer;
  readonly limits: SandboxLimits;
  /** Host patterns for the egress proxy (each one parses). */
  readonly network: readonly string[];
  readonly networkLabel: string | undefined;
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
  if ((request.source === undefined) === (request.entry === undefined)) return bad("request: give exactly one of source (program text) and entry (a script file's sandbox path)");
  if (request.source !== undefined) {
    if (typeof request.source !== "string") return bad(`source: expected a string, got ${typeof request.source}`);
    if (request.source.includes("\0")) return bad("source: must not contain NUL characters");
  }
  if (request.freshWorkspace !== undefined && typeof request.freshWorkspace !== "boolean") return bad(`freshWorkspace: expected true or false, got ${JSON.stringify(request.freshWorkspace)}`);

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

  let program: ValidProgram;
  if (request.entry !== undefined) {
    const entry = entryFile(request.entry, mounts);
    if ("problem" in entry) return bad(entry.problem, "INVALID_PATH");
    program = { kind: "entry", ...entry };
  } else {
    program = { kind: "source", source: request.source as string };
  }

  const network: string[] = [];
  if (request.network !== undefined && !Array.isArray(request.network)) return bad(`network: expected a list of host patterns, got ${JSON.stringify(request.network)}`);
  for (const [index, pattern] of (request.network ?? []).entries()) {
    const parsed = parseHostPattern(pattern);
    if ("problem" in parsed) return bad(`network[${index}]: ${parsed.problem}`);
    network.push(pattern);
  }
  const label: unknown = request.networkLabel;
  if (label !== undefined && (typeof label !== "string" || label.length > 200 || /[\x00-\x1f\x7f]/.test(label))) return bad(`networkLabel: expected a line of at most 200 characters, got ${JSON.stringify(label)}`);

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
      program,
      workspaceDir: workspace.real,
      freshWorkspace: request.freshWorkspace === true,
      mounts,
      env,
      bridgeSocket,
      bridgeConnection: bridgeSocket === undefined ? undefined : request.bridgeConnection,
      bridgeToken: request.bridgeToken,
      timeoutMs,
      stdin,
      limits: limits.limits,
      network,
      networkLabel: label as string | undefined,
    },
  };
}

/**
 * A script file named by its sandbox path: it must lie under one of the request's mounts and be a
 * file there, its real host path still inside that mount (a link out of it is refused).
 */
function entryFile(entry: unknown, mounts: readonly SandboxMount[]): { sandboxPath: string; hostPath: string } | { problem: string } {
  if (typeof entry !== "string" || !path.posix.isAbsolute(entry) || path.posix.normalize(entry) !== entry || entry.includes("\0")) {
    return { problem: `entry: expected the normalized absolute sandbox path of a script file, got ${JSON.stringify(entry)}` };
  }
  const mount = mounts.find((candidate) => entry.startsWith(`${candidate.sandboxPath}/`));
  if (!mount) return { problem: `entry: ${entry} is not inside any of the request's mounts (${mounts.map((candidate) => candidate.sandboxPath).join(", ") || "none"})` };
  const hostPath = path.join(mount.hostPath, ...entry.slice(mount.sandboxPath.length + 1).split("/"));
  let real: string;
  try {
    real = fs.realpathSync(hostPath);
  } catch {
    return { problem: `entry: ${entry} does not exist (${hostPath} on the host)` };
  }
  if (!real.startsWith(`${mount.hostPath}${path.sep}`)) return { problem: `entry: ${entry} leads outside its mount ${mount.sandboxPath}` };
  if (!fs.statSync(real).isFile()) return { problem: `entry: ${entry} is not a file` };
  // The file as the sandbox sees it through its real path (a link inside the mount is resolved here).
  return { sandboxPath: path.posix.join(mount.sandboxPath, ...path.relative(mount.hostPath, real).split(path.sep)), hostPath: real };
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
