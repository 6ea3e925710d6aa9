import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { ThinktankError } from "@thinktank/core";
import { createOAuthTokenStore, OAuthSignIn, signInPage, signOut } from "@thinktank/mcp";
import type { McpServerEntry, SignInFinished } from "@thinktank/mcp";
import type { CliIo } from "../cli-command.js";
import { openMcpContext } from "./mcp-context.js";

/**
 * `thinktank mcp login SERVER [--port N]`: signs in to a remote MCP server from a terminal. Prints
 * the authorization URL and waits (up to mcp.oauth.sign_in_timeout_seconds) for the browser to come
 * back to a callback on 127.0.0.1; the tokens go into the same encrypted store the gateway writes.
 * `--port` (or the entry's oauth.callback_port) fixes the port for a client registered with one.
 */
export async function runMcpLogin(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { port: { type: "string" } }, allowPositionals: true });
  const server = onlyServer(positionals, "mcp login SERVER [--port N]");
  const context = await openMcpContext(io);
  await context.close();
  const entry = context.entries[server];
  if (!entry) throw unknownServer(server, context.entries);
  const port = values.port !== undefined ? Number(values.port) : callbackPortOf(entry);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new ThinktankError("VALIDATION_FAILED", `--port must be a port number (got ${values.port})`);
  const { oauth } = context.config.mcp;
  const timeoutMs = oauth.sign_in_timeout_seconds * 1000;
  const signIn = new OAuthSignIn({ store: createOAuthTokenStore(context.config), env: context.config.env, clientName: oauth.client_name, clientMetadataUrl: oauth.client_metadata_url, pendingTtlMs: timeoutMs, timeoutMs: context.config.mcp.connect_timeout_ms });
  const lookup = async (name: string): Promise<McpServerEntry | undefined> => context.entries[name];
  let settle: (outcome: SignInFinished | ThinktankError) => void = () => {};
  const outcome = new Promise<SignInFinished | ThinktankError>((resolve) => (settle = resolve));
  const loopback = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void response.writeHead(404).end();
    const params = Object.fromEntries(url.searchParams);
    signIn.finish(params, lookup).then(
      (done) => {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(signInPage({ ok: true, server: done.server }));
        settle(done);
      },
      (error: unknown) => {
        const failure = error instanceof ThinktankError ? error : new ThinktankError("OAUTH_AUTHORIZATION_FAILED", String(error));
        response.writeHead(400, { "content-type": "text/html; charset=utf-8" }).end(signInPage({ ok: false, code: failure.code, message: failure.message }));
        // A stray request (a wrong or stale state) does not end the wait; the sign-in's own answer does.
        if (failure.code !== "OAUTH_STATE_INVALID") settle(failure);
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => loopback.once("error", reject).listen(port ?? 0, "127.0.0.1", resolve));
    const actual = (loopback.address() as AddressInfo).port;
    // A client registered with a fixed port (Claude Code's callbackPort) has http://localhost:<port>/callback on file.
    const redirectUrl = `http://${port !== undefined ? "localhost" : "127.0.0.1"}:${actual}/callback`;
    const started = await signIn.start(server, entry, { redirectUrl });
    io.stdout.write(`Open this URL in a browser to sign in to ${server}:\n\n  ${started.authorizationUrl}\n\nWaiting for the sign-in (up to ${oauth.sign_in_timeout_seconds} s)...\n`);
    const timer = setTimeout(() => settle(new ThinktankError("TIMEOUT", `no sign-in came back within ${oauth.sign_in_timeout_seconds} s`)), timeoutMs);
    const result = await outcome;
    clearTimeout(timer);
    if (result instanceof ThinktankError) throw result;
    io.stdout.write(`Signed in to ${server}${result.scopes.length > 0 ? ` (scopes: ${result.scopes.join(" ")})` : ""}.\n`);
    return 0;
  } finally {
    loopback.closeAllConnections();
    await new Promise((resolve) => loopback.close(resolve));
  }
}

/** `thinktank mcp logout SERVER`: forgets the server's tokens and revokes them where it can. */
export async function runMcpLogout(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true });
  const server = onlyServer(positionals, "mcp logout SERVER");
  const context = await openMcpContext(io);
  await context.close();
  const { connect_timeout_ms: timeoutMs } = context.config.mcp;
  const result = await signOut({ store: createOAuthTokenStore(context.config), server, entry: context.entries[server], env: context.config.env, fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) }) });
  if (!result.forgotten) {
    io.stdout.write(`Not signed in to ${server}: nothing to forget.\n`);
    return 0;
  }
  io.stdout.write(`Signed out of ${server}: tokens forgotten${result.revoked ? " and revoked" : `; not revoked (${result.revocation ?? "unknown"})`}.\n`);
  return 0;
}

function onlyServer(positionals: string[], usage: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new ThinktankError("VALIDATION_FAILED", `usage: thinktank ${usage}`);
  return positionals[0];
}

function callbackPortOf(entry: McpServerEntry): number | undefined {
  const port = entry.oauth?.callback_port ?? entry.oauth?.callbackPort;
  return typeof port === "number" ? port : undefined;
}

function unknownServer(server: string, entries: Readonly<Record<string, McpServerEntry>>): ThinktankError {
  return new ThinktankError("MCP_SERVER_NOT_FOUND", `no MCP server named '${server}' (configured: ${Object.keys(entries).sort().join(", ") || "none"})`, { details: { server } });
}
