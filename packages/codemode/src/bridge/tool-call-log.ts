import type { ToolCallRecord } from "../code-mode-types.js";

/**
 * The audit trail of one execution: every call the program made through the bridge, in the order
 * they finished. Keeps the first `maxRecords` and counts the rest, so a program looping over
 * thousands of calls cannot flood the model with its own audit trail.
 */
export class ToolCallLog {
  private readonly records: ToolCallRecord[] = [];
  private omitted = 0;

  /** @param maxRecords @default 100 */
  constructor(private readonly maxRecords = 100) {}

  add(record: ToolCallRecord): void {
    if (this.records.length < this.maxRecords) this.records.push(record);
    else this.omitted += 1;
  }

  /** Calls recorded so far, and how many were left out. */
  snapshot(): { tools_called: ToolCallRecord[]; omitted: number } {
    return { tools_called: [...this.records], omitted: this.omitted };
  }
}
