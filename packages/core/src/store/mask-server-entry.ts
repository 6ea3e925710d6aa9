import { isSecretName, looksLikeSecret, maskUrlSecrets, redactedMarker } from "../logging/secret-patterns.js";

const knownFields = new Set(["type", "command", "args", "env", "cwd", "url", "headers", "description", "enabled", "sandbox", "network"]);

/**
 * An MCP server entry fit to show: every env value and header value masked, passwords and
 * secret query parameters in URLs masked, secret-looking arguments (`--token X`, `--api-key=X`,
 * `KEY=...`, anything shaped like a key) masked, and the same rules over extra fields.
 * `$VAR` / `${VAR}` placeholders are shown as written, since they are names, not secrets.
 */
export function maskServerEntry<T extends Readonly<Record<string, unknown>>>(entry: T): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key === "env" || key === "headers") masked[key] = maskEveryValue(value);
    else if (key === "url" && typeof value === "string") masked[key] = maskUrlSecrets(value, isPlaceholderOnly);
    else if (key === "args" && Array.isArray(value)) masked[key] = maskArguments(value);
    else if (key === "oauth" && value && typeof value === "object" && !Array.isArray(value)) masked[key] = maskOAuth(value as Record<string, unknown>);
    else if (knownFields.has(key)) masked[key] = value;
    else masked[key] = isSecretName(key) ? maskValue(value) : maskDeep(value);
  }
  return masked;
}

/** True for text made only of placeholders (and an auth scheme word): `${TOKEN}`, `Bearer $TOKEN`. */
export function isPlaceholderOnly(text: string): boolean {
  const rest = text
    .replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*/g, "")
    .replace(/^\s*(Bearer|Basic|Token)\b/i, "")
    .trim();
  return rest === "" && text.includes("$");
}

function maskValue(value: unknown): unknown {
  if (typeof value === "string") return isPlaceholderOnly(value) ? value : redactedMarker;
  if (value === null || value === undefined || typeof value === "boolean") return value;
  return redactedMarker;
}

/**
 * A map whose every value may be secret (an `env` or `headers` map) fit to show: each value is
 * `[redacted]` unless it is only `$VAR` / `${VAR}` placeholders.
 */
export function maskEveryValue(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return maskValue(value);
  return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, maskValue(child)]));
}

function maskArguments(args: readonly unknown[]): unknown[] {
  return args.map((arg, index) => {
    if (typeof arg !== "string") return arg;
    const previous = args[index - 1];
    if (typeof previous === "string" && /^--?[A-Za-z]/.test(previous) && !previous.includes("=") && isSecretName(previous)) return maskValue(arg);
    return maskString(arg);
  });
}

/** One string: `--name=value` and `NAME=value` by their name, URLs by their query, anything key-shaped. */
function maskString(text: string): string {
  if (isPlaceholderOnly(text)) return text;
  const assignment = /^(--?[A-Za-z][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)(.*)$/s.exec(text);
  if (assignment) {
    const [, head = "", value = ""] = assignment;
    if (isPlaceholderOnly(value)) return text;
    if (isSecretName(head) || looksLikeSecret(value)) return `${head}${redactedMarker}`;
    return `${head}${maskString(value)}`;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return maskUrlSecrets(text, isPlaceholderOnly);
  if (/^(Bearer|Basic|Token)\s+\S+/i.test(text)) return text.replace(/\s+\S+$/, ` ${redactedMarker}`);
  return looksLikeSecret(text) ? redactedMarker : text;
}

/** The `oauth` block: the secret masked as any secret, `token_url` as a URL (its name is not a secret). */
function maskOAuth(block: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(block).map(([key, child]) => {
      if (key === "token_url" && typeof child === "string") return [key, maskUrlSecrets(child, isPlaceholderOnly)];
      return [key, isSecretName(key) ? maskValue(child) : maskDeep(child)];
    }),
  );
}

function maskDeep(value: unknown): unknown {
  if (typeof value === "string") return maskString(value);
  if (Array.isArray(value)) return value.map(maskDeep);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, isSecretName(key) ? maskValue(child) : maskDeep(child)]));
  }
  return value;
}
