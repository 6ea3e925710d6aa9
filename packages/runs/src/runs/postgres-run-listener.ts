import { PostgresListener } from "../persistence/postgres-listener.js";

/** The channel replicas tell each other about runs on: `{ k: "cancel", r, a }` (cancel run r the way a), `{ k: "end", r, t }` (run r of thread t ended). */
export const runsChannel = "thinktank_runs";

export type RunNotice = { k: "cancel"; r: string; a: "interrupt" | "rollback" } | { k: "end"; r: string; t: string };

export interface PostgresRunListenerOptions {
  readonly url: string;
  readonly onNotice: (notice: RunNotice) => void;
  /** Listening again after the connection dropped: notices sent meanwhile are lost, so look at the records. */
  readonly onReconnect: () => void;
  readonly log?: { info(fields: object, message: string): void; error(fields: object, message: string): void };
}

/**
 * The run queue's ear on the runs channel: a PostgresListener that reads the notices and logs what
 * happens to its connection. The queue's heartbeat also looks at the records, so a notice lost
 * while reconnecting delays a cancel or a join by one heartbeat at most.
 */
export function listenToRunNotices(options: PostgresRunListenerOptions): PostgresListener {
  const { log } = options;
  return new PostgresListener({
    url: options.url,
    channel: runsChannel,
    onPayload: (payload) => {
      let notice: RunNotice;
      try {
        notice = JSON.parse(payload) as RunNotice;
      } catch (error) {
        return log?.error({ err: error, payload }, "unreadable notice on the runs channel");
      }
      options.onNotice(notice);
    },
    onReconnect: () => {
      log?.info({}, "listening on the runs channel again");
      options.onReconnect();
    },
    onError: (error, what) =>
      log?.error({ err: error }, what === "dropped" ? "the runs channel's connection to Postgres dropped; connecting again" : "cannot listen on the runs channel yet"),
  });
}
