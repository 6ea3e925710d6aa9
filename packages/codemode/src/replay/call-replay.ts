import { isDeepStrictEqual } from "node:util";
import type { InputRequests } from "@thinktank/mcp";

/** What the bridge answered one call: the HTTP status and the JSON body the program read. */
export interface BridgeAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One call of an execution, as answered, with the input rounds it asked for (in order). */
export interface RecordedCall {
  readonly server: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly answer: BridgeAnswer;
  /** The requests of each input_required round the call went through before its answer. */
  readonly inputRounds: readonly InputRequests[];
}

/** What a resumed execution did with the record of the one before (ExecuteCodeResult.replay). */
export interface ReplaySummary {
  /** Calls answered from the record instead of being made again. */
  readonly replayed: number;
  /** Calls of the record the program did not make again (it stopped or went another way). */
  readonly unused: number;
  /** The first call that matched nothing in the record: from it on every call was made live. */
  readonly diverged?: { readonly call: string; readonly note: string };
}

/**
 * The calls one execute_code call made before it paused for a person's input, and their replay when
 * the same program runs again on resume: a call with the same server, tool and arguments as the
 * next one recorded (the first unused one with that key, so calls made in parallel may finish in
 * another order) gets the recorded answer instead of reaching the tool a second time, so side
 * effects before the pause happen once. The first call that matches nothing ends the replay: that
 * call and every later one are made live, and the summary says so.
 */
export class CallReplay {
  private readonly used: boolean[];
  private readonly answered: RecordedCall[] = [];
  private replayedCount = 0;
  private divergedAt: { call: string; note: string } | undefined;

  constructor(private readonly recorded: readonly RecordedCall[] = []) {
    this.used = recorded.map(() => false);
  }

  /** Whether there is a record to replay from at all. */
  get replaying(): boolean {
    return this.recorded.length > 0;
  }

  /** The recorded call answering this one, or undefined (make it live). */
  take(server: string, tool: string, args: Record<string, unknown>): RecordedCall | undefined {
    if (this.divergedAt || !this.replaying) return undefined;
    const at = this.recorded.findIndex((call, index) => !this.used[index] && call.server === server && call.tool === tool && isDeepStrictEqual(call.args, args));
    if (at < 0) {
      const next = this.recorded.find((_, index) => !this.used[index]);
      // Past the last recorded call the program goes on as it would have: live, not a divergence.
      if (!next) return undefined;
      this.divergedAt = {
        call: `${server}.${tool}`,
        note: `the program called ${server}.${tool} where the run before the pause called ${next.server}.${next.tool}${next.server === server && next.tool === tool ? " with other arguments" : ""}; this call and every one after it were made live, not replayed`,
      };
      return undefined;
    }
    this.used[at] = true;
    this.replayedCount += 1;
    const call = this.recorded[at] as RecordedCall;
    this.answered.push(call);
    return call;
  }

  /** A call answered live in this execution. */
  add(call: RecordedCall): void {
    this.answered.push(call);
  }

  /** Every call answered in this execution, replayed or live, in the order they were answered. */
  calls(): readonly RecordedCall[] {
    return [...this.answered];
  }

  summary(): ReplaySummary {
    const unused = this.used.filter((used) => !used).length;
    return { replayed: this.replayedCount, unused, ...(this.divergedAt ? { diverged: this.divergedAt } : {}) };
  }
}
