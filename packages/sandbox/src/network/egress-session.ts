import type { Socket } from "node:net";
import { apiKeyMatches } from "@thinktank/core";
import type { HostPattern } from "./host-pattern.js";
import type { EgressConnection, EgressPolicy } from "./egress-types.js";

/** One connection while it is open: counts its bytes and becomes an `EgressConnection` record once. */
export class ConnectionTrace {
  host: string;
  address: string | undefined;
  allowed = false;
  reason = "";
  status = 0;
  bytesSent = 0;
  bytesReceived = 0;
  private done = false;

  constructor(
    private readonly session: EgressSession,
    readonly kind: EgressConnection["kind"],
    host: string,
    readonly port: number,
    private readonly startedAt: number,
  ) {
    this.host = host;
  }

  /** Records the connection (once: later calls do nothing). */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.session.record(this, {
      kind: this.kind,
      host: this.host,
      port: this.port,
      ...(this.address !== undefined ? { address: this.address } : {}),
      allowed: this.allowed,
      reason: this.reason,
      status: this.status,
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      ms: Math.round((this.session.now() - this.startedAt) * 100) / 100,
      ...(this.session.policy.label !== undefined ? { label: this.session.policy.label } : {}),
    });
  }
}

/** What a session needs from its proxy. */
export interface SessionHost {
  /** Feeds a program's connection to the proxy's HTTP server. */
  serve(socket: Socket, session: EgressSession): void;
  report(connection: EgressConnection): void;
  /** Reports that a run's records past the bound were counted only. */
  reportOmitted(policy: EgressPolicy, omitted: number): void;
  readonly maxConnectionsPerRun: number;
  readonly maxRecordsPerRun: number;
  readonly now: () => number;
}

/**
 * One run's use of the egress proxy: its policy, the connections handed to it (and the ones the
 * proxy opened for them), and the record of every connection allowed or refused. `end()` closes
 * whatever is still open and returns the records.
 */
export class EgressSession {
  private ended = false;
  private readonly sockets = new Set<Socket>();
  private readonly open = new Set<ConnectionTrace>();
  private readonly records: EgressConnection[] = [];
  /** Connections past `maxRecordsPerRun`: counted, neither kept nor logged one by one (a program looping on refused requests). */
  private omittedCount = 0;

  constructor(
    readonly policy: EgressPolicy,
    readonly patterns: readonly HostPattern[],
    private readonly host: SessionHost,
  ) {}

  get now(): () => number {
    return this.host.now;
  }

  /** Tunnels and requests the run may have open at once. */
  get maxConnections(): number {
    return this.host.maxConnectionsPerRun;
  }

  /** Takes one connection from the program (through the worker's entrance). */
  accept(socket: Socket): void {
    if (this.ended) {
      socket.destroy();
      return;
    }
    this.track(socket);
    this.host.serve(socket, this);
  }

  /** Closes the socket with the session (a program's connection, or one the proxy opened for it). */
  track(socket: Socket): void {
    if (this.ended) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
  }

  /** Whether a request carries the credentials the policy asks for (always, when it asks none). */
  authorized(header: string | undefined): boolean {
    const expected = this.policy.proxyAuthorization;
    return expected === undefined || apiKeyMatches(header, expected);
  }

  /** Starts tracing a connection; `admitted` is false when the run already has as many open as it may. */
  begin(kind: EgressConnection["kind"], host: string, port: number): { trace: ConnectionTrace; admitted: boolean } {
    const trace = new ConnectionTrace(this, kind, host, port, this.host.now());
    const admitted = this.open.size < this.host.maxConnectionsPerRun;
    this.open.add(trace);
    return { trace, admitted };
  }

  record(trace: ConnectionTrace, connection: EgressConnection): void {
    this.open.delete(trace);
    if (this.records.length >= this.host.maxRecordsPerRun) {
      this.omittedCount++;
      return;
    }
    this.records.push(connection);
    this.host.report(connection);
  }

  /** Ends the session: every socket is closed, open connections are recorded as they stand; returns every record. */
  end(): EgressConnection[] {
    if (!this.ended) {
      this.ended = true;
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
      for (const trace of [...this.open]) trace.finish();
      if (this.omittedCount > 0) this.host.reportOmitted(this.policy, this.omittedCount);
    }
    return [...this.records];
  }

  /** Connections the run made past the records' bound (counted only). */
  get omitted(): number {
    return this.omittedCount;
  }
}
