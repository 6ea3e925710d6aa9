import type { Config } from "@thinktank/core";
import type { RunManager, StoreService, ThreadService } from "@thinktank/runs";

/** What the route modules share. */
export interface AgentRouteContext {
  readonly config: Config;
  readonly threads: ThreadService;
  readonly runs: RunManager;
  /** The LangGraph store API (`/store/...`). */
  readonly store: StoreService;
  readonly clock: () => Date;
  /** When the server started (the fixed assistant's created_at). */
  readonly startedAt: string;
}
