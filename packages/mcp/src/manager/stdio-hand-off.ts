import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * One stdio child shared by the era attempts of a connect, so a 2025-era server starts once:
 * the v2 Client probes with `server/discover` on it in place (a transport of this shape is not the
 * SDK's own class, so the SDK does not start a second, disposable child for the probe), and when
 * the answer shows no 2026-07-28 the same running child goes on to the v1 Client's initialize.
 *
 * `start()` starts the child once (later calls do nothing), and while `hold` is on, `close()`
 * leaves the child running (the v2 Client closes its transport when its probe fails). A child that
 * exited during the probe (some servers exit on any request before initialize) is `ended`: the
 * next attempt starts a new one.
 */
export class StdioHandOff implements Transport {
  /** While on, close() does not stop the child (set off once a session owns it). */
  hold = true;
  private started = false;
  private endedFlag = false;
  private onCloseHandler: (() => void) | undefined;

  constructor(readonly inner: StdioClientTransport) {
    inner.onclose = () => {
      this.endedFlag = true;
      this.onCloseHandler?.();
    };
  }

  /** The child has exited (or was never started and cannot be). */
  get ended(): boolean {
    return this.endedFlag;
  }

  get pid(): number | null {
    return this.inner.pid;
  }

  get stderr(): StdioClientTransport["stderr"] {
    return this.inner.stderr;
  }

  get onmessage(): Transport["onmessage"] {
    return this.inner.onmessage;
  }

  set onmessage(handler: Transport["onmessage"]) {
    this.inner.onmessage = handler;
  }

  get onerror(): Transport["onerror"] {
    return this.inner.onerror;
  }

  set onerror(handler: Transport["onerror"]) {
    this.inner.onerror = handler;
  }

  get onclose(): (() => void) | undefined {
    return this.onCloseHandler;
  }

  set onclose(handler: (() => void) | undefined) {
    this.onCloseHandler = handler;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    try {
      await this.inner.start();
    } catch (error) {
      this.endedFlag = true;
      throw error;
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  async close(): Promise<void> {
    if (this.hold && !this.endedFlag) return;
    await this.inner.close();
  }
}
