import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerTokenSource } from "../oauth/server-token-source.js";
import type { FailureClass } from "./classify-failure.js";
import type { ManagerLogger } from "./manager-types.js";

/**
 * A managed server's side of OAuth: its token source (the fetch its transport uses), whether a
 * failure means it needs sign-in, and the needs_auth bookkeeping: the store's sign-in revision
 * when it was found (only a new sign-in lets it try again) and one log line per server.
 */
export class SignInWatch {
  private revision: string | undefined;
  private logged = false;

  constructor(
    private readonly server: string,
    /** None for stdio, and for an entry that sends its own Authorization header. */
    private readonly tokens: ServerTokenSource | undefined,
    private readonly logger: ManagerLogger,
    private readonly track: (work: Promise<unknown>) => void,
  ) {}

  /** The transport's fetch, when the server has a token source. */
  get fetch(): FetchLike | undefined {
    return this.tokens?.fetch;
  }

  /** Whether the server signs in at all (a 401 of one that does not is a plain failure). */
  get signsIn(): boolean {
    return this.tokens !== undefined;
  }

  /** A 401, or a 403 whose challenge asks for more scope, from a server that signs in. */
  isAuthFailure(failure: FailureClass): boolean {
    if (!this.tokens) return false;
    return failure.needsAuth === true || (failure.reason.startsWith("HTTP 403") && this.tokens.lastChallenge?.status === 403);
  }

  /** Whether someone signed in (or out) since the server was found to need sign-in. */
  changed(): boolean {
    return this.tokens !== undefined && this.tokens.revision() !== this.revision;
  }

  /** Notes that the server needs sign-in; answers the status reason. Logs once per server, notes it in the store. */
  enter(): string {
    const challenge = this.tokens?.lastChallenge;
    const why = this.tokens?.problem ?? "the server asks for sign-in";
    const scope = challenge?.error === "insufficient_scope" && challenge.scope ? ` (it asks for scope '${challenge.scope}')` : "";
    this.revision = this.tokens?.revision();
    if (!this.logged) this.logger.warn({ server: this.server, reason: why }, "mcp server needs sign-in");
    this.logged = true;
    if (this.tokens) this.track(this.tokens.markNeedsAuth(why));
    return `needs sign-in: ${why}${scope}; sign in with POST /api/mcp/servers/${encodeURIComponent(this.server)}/auth or \`thinktank mcp login ${this.server}\``;
  }

  /** A connect succeeded: a later need for sign-in is logged again. */
  connected(): void {
    this.logged = false;
  }
}
