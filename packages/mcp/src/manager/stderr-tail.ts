import { redactedMarker, redactSecrets } from "@thinktank/core";
import type { ResolvedServerConfig } from "../servers/server-entry.js";
import type { ManagerLogger } from "./manager-types.js";

/** Lines of a stdio server's stderr kept to explain why it stopped. */
const stderrLinesKept = 20;
/** Shorter env values are not masked in stderr lines ("1", "on", "dev" would mask ordinary words). */
const minMaskedLength = 4;

/**
 * The last lines a stdio server wrote to stderr (to explain why it stopped), each logged at debug,
 * with secrets masked: the values of the entry's own `env` and words shaped as well-known keys.
 */
export class StderrTail {
  private readonly lines: string[] = [];

  constructor(
    private readonly server: string,
    private readonly config: ResolvedServerConfig,
    private readonly logger: ManagerLogger,
  ) {}

  /** Reads a child's stderr (a stream that may be absent) line by line. */
  capture(stderr: NodeJS.ReadableStream | null | undefined): void {
    let partial = "";
    stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) this.keep(line);
      if (partial.length > 4096) {
        this.keep(partial);
        partial = "";
      }
    });
  }

  all(): string[] {
    return [...this.lines];
  }

  last(): string | undefined {
    return this.lines.at(-1);
  }

  private keep(line: string): void {
    const trimmed = redactSecrets(this.withoutEnvValues(line.trim()));
    if (!trimmed) return;
    this.logger.debug({ server: this.server, line: trimmed.slice(0, 500) }, "mcp server stderr");
    this.lines.push(trimmed.slice(0, 500));
    if (this.lines.length > stderrLinesKept) this.lines.shift();
  }

  /**
   * The line with the values of the entry's own `env` masked: a server that prints its
   * configuration (or a token it was given) on stderr must not put it in the reasons shown by
   * GET /api/mcp/servers, `thinktank mcp list`, list_servers (the model) and the logs. PATH and
   * HOME come from the host, and values under 4 characters would mask ordinary words.
   */
  private withoutEnvValues(line: string): string {
    if (this.config.transport !== "stdio") return line;
    const values = Object.entries(this.config.env)
      .filter(([name, value]) => name !== "PATH" && name !== "HOME" && value.length >= minMaskedLength)
      .map(([, value]) => value)
      .sort((a, b) => b.length - a.length);
    let masked = line;
    for (const value of values) masked = masked.replaceAll(value, redactedMarker);
    return masked;
  }
}
