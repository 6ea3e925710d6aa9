// The LangGraph SDK client for the agent API, which the gateway serves under this origin at
// `/agent` (docs/console.md, "One origin"): the session cookie goes with every request, the CSRF
// token with every mutation, and no API key is ever read or sent from the browser.
// The SDK (with the langsmith and @langchain/core it brings, most of the console's JavaScript) is
// loaded as a chunk of its own after the first paint, so the message box is usable before it
// arrives (docs/benchmarks.md, "Console").
import type { Client } from "@langchain/langgraph-sdk";
import { useEffect, useState } from "react";
import { ApiError } from "./api-client.js";
import type { Session } from "./session.js";

/** Where the gateway proxies the agent API (LangGraph API paths: `/agent/threads`, `/agent/runs`, ...). */
export const agentBasePath = "/agent";

/**
 * A client for the agent API on this origin, for a session whose CSRF token is known.
 * `apiKey: null` keeps the SDK from looking for a key in the environment.
 */
export async function createAgentClient(csrfToken: string | undefined): Promise<Client> {
  const { Client } = await import("@langchain/langgraph-sdk");
  return new Client({
    apiUrl: `${location.origin}${agentBasePath}`,
    apiKey: null,
    defaultHeaders: csrfToken ? { "x-csrf-token": csrfToken } : {},
  });
}

/** The agent client while it loads and once loaded, or the failure to load it. */
export interface AgentClientState {
  readonly client?: Client;
  readonly error?: unknown;
  /** The client, waiting for it when it is still loading. */
  readonly ready: () => Promise<Client>;
}

/** The agent client for the signed-in session: made once per session (a new one after sign-in again). */
export function useAgentClient(session: Session): AgentClientState {
  const token = session.csrfToken;
  const [state, setState] = useState<{ token: string | undefined; pending: Promise<Client>; client?: Client; error?: unknown }>(() => ({ token, pending: createAgentClient(token) }));
  const current = state.token === token ? state : { token, pending: createAgentClient(token) };
  if (current !== state) setState(current);
  useEffect(() => {
    let live = true;
    current.pending.then(
      (client) => live && setState((now) => (now.pending === current.pending ? { ...now, client } : now)),
      (error: unknown) => live && setState((now) => (now.pending === current.pending ? { ...now, error } : now)),
    );
    return () => {
      live = false;
    };
  }, [current.pending]);
  return { client: current.client, error: current.error, ready: () => current.pending };
}

/**
 * An SDK failure as the console shows errors: the SDK throws `HTTP <status>: <body>`, and the agent
 * answers `{ code, message }`; anything else (the network) keeps its message.
 */
export function agentError(error: unknown): unknown {
  if (error instanceof ApiError || !(error instanceof Error)) return error;
  const match = /^HTTP (\d+): ([\s\S]*)$/.exec(error.message);
  if (!match) return error;
  let body: { code?: unknown; message?: unknown; detail?: unknown } = {};
  try {
    body = JSON.parse(match[2] as string) as typeof body;
  } catch {
    body = { message: match[2] };
  }
  const status = Number(match[1]);
  const message = typeof body.message === "string" ? body.message : typeof body.detail === "string" ? body.detail : `HTTP ${status}`;
  return new ApiError(status, typeof body.code === "string" ? body.code : `HTTP_${status}`, message);
}
