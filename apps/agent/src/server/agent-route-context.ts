import type { Config } from "@thinktank/core";
import type { AssistantService, RunManager, StoreService, ThreadService } from "@thinktank/runs";

/** What the route modules share. */
export interface AgentRouteContext {
  readonly config: Config;
  readonly threads: ThreadService;
  readonly runs: RunManager;
  /** Assistants: lead_agent's built-in one and the stored ones, as each caller reaches them. */
  readonly assistants: AssistantService;
  /** The LangGraph store API (`/store/...`). */
  readonly store: StoreService;
  readonly clock: () => Date;
  /** When the server started (the built-in assistant's created_at). */
  readonly startedAt: string;
}
