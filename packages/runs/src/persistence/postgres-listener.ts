import pg from "pg";

export interface PostgresListenerOptions {
  readonly url: string;
  /** The NOTIFY channel listened on (a plain identifier). */
  readonly channel: string;
  /** The connection's application_name, so pg_stat_activity shows which connection it is. */
  readonly applicationName?: string;
  /** Hears each notification's payload on the channel. */
  readonly onPayload: (payload: string) => void;
  /** Listening again after the connection dropped: what was notified meanwhile was missed, so look at the rows. */
  readonly onReconnect: () => void;
  /** Hears the connection drop (it is reopened) and each failed attempt to reopen it. */
  readonly onError: (error: unknown, what: "dropped" | "reopening") => void;
}

/** How long to wait before connecting again, doubled per failure up to the last. */
const retryMs = [100, 250, 500, 1000, 2000, 5000];

/**
 * LISTEN on one channel over a connection of its own (a pooled one would go back to the pool and
 * stop hearing), connecting again whenever it drops: the one listening connection keeper of the
 * package (the runs channel of the run queue, the run events' announcements).
 *
 * States: opening → listening → (dropped → waiting → opening …) until close(); a close() in any
 * state ends the connection and stops the retries.
 */
export class PostgresListener {
  readonly #options: PostgresListenerOptions;
  #client: pg.Client | undefined;
  #closed = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(options: PostgresListenerOptions) {
    this.#options = options;
  }

  /** Connects and listens; rejects when the first connection fails (start-up then fails). */
  async open(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const { url, channel, applicationName } = this.#options;
    const client = new pg.Client({ connectionString: url, ...(applicationName ? { application_name: applicationName } : {}) });
    // Until it listens, a failure rejects #connect (its caller decides); after, it is a drop.
    let dropped = true;
    const drop = (error: unknown) => {
      if (dropped) return;
      dropped = true;
      if (this.#client === client) this.#client = undefined;
      if (this.#closed) return;
      this.#options.onError(error, "dropped");
      void client.end().catch(() => undefined);
      this.#reconnect();
    };
    client.on("error", drop);
    client.on("end", () => drop(new Error("the connection ended")));
    client.on("notification", (message) => {
      if (message.channel === channel && message.payload) this.#options.onPayload(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    dropped = false;
    this.#client = client;
    this.#failures = 0;
  }

  #reconnect(): void {
    if (this.#closed || this.#retry) return;
    const wait = retryMs[Math.min(this.#failures, retryMs.length - 1)] as number;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#closed) return;
      this.#connect().then(
        () => {
          if (!this.#closed) this.#options.onReconnect();
        },
        (error: unknown) => {
          this.#failures++;
          if (!this.#closed) this.#options.onError(error, "reopening");
          this.#reconnect();
        },
      );
    }, wait);
    this.#retry.unref();
  }
}
