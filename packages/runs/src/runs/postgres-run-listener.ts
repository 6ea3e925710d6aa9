import pg from "pg";

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

/** How long to wait before connecting again, doubled per failure up to the last. */
const retryMs = [250, 500, 1000, 2000, 5000];

/**
 * LISTEN on the runs channel over a connection of its own (a pooled one would go back to the pool),
 * connecting again whenever it drops. The queue's heartbeat also looks at the records, so a notice
 * lost while reconnecting delays a cancel or a join by one heartbeat at most.
 */
export class PostgresRunListener {
  readonly #options: PostgresRunListenerOptions;
  #client: pg.Client | undefined;
  #closed = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(options: PostgresRunListenerOptions) {
    this.#options = options;
  }

  /** Connects and listens; rejects when the first connection fails (start-up then fails). */
  async open(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.url });
    let dropped = false;
    const drop = (error?: Error) => {
      if (dropped) return;
      dropped = true;
      if (this.#client === client) this.#client = undefined;
      if (this.#closed) return;
      this.#options.log?.error({ err: error }, "the runs channel's connection to Postgres dropped; connecting again");
      void client.end().catch(() => undefined);
      this.#reconnect();
    };
    client.on("error", drop);
    client.on("end", () => drop());
    client.on("notification", (message) => {
      if (message.channel !== runsChannel || !message.payload) return;
      try {
        this.#options.onNotice(JSON.parse(message.payload) as RunNotice);
      } catch (error) {
        this.#options.log?.error({ err: error, payload: message.payload }, "unreadable notice on the runs channel");
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${runsChannel}`);
    } catch (error) {
      dropped = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#failures = 0;
  }

  #reconnect(): void {
    if (this.#closed || this.#retry) return;
    const wait = retryMs[Math.min(this.#failures, retryMs.length - 1)] as number;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect().then(
        () => {
          if (this.#closed) return;
          this.#options.log?.info({}, "listening on the runs channel again");
          this.#options.onReconnect();
        },
        (error: unknown) => {
          this.#failures++;
          this.#options.log?.error({ err: error }, "cannot listen on the runs channel yet");
          this.#reconnect();
        },
      );
    }, wait);
    this.#retry.unref();
  }
}
