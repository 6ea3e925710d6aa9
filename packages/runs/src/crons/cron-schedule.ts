import { Cron } from "croner";
import { ThinktankError } from "@thinktank/core";

/** How many of a schedule's coming times are compared to find its shortest interval. */
const intervalSample = 100;
/**
 * How far past its first coming time a schedule's times are compared (a year and a day): a
 * pattern's shortest interval shows within it, and a rare pattern (Feb 29 at 23:59:59) costs two
 * searches, not a hundred (each a scan of years).
 */
const intervalHorizonMs = 366 * 24 * 3600 * 1000;
/** The longest schedule and time zone accepted, in characters (a real one is a few dozen; a long list costs seconds to parse). */
export const maxScheduleChars = 200;
const maxTimezoneChars = 64;

/** A 422 INVALID_CRON naming the field (`details.field`), as every bad cron field is answered. */
export function invalidCron(field: string, message: string): ThinktankError {
  return new ThinktankError("INVALID_CRON", `${field}: ${message}`, { details: { field } });
}

/**
 * A cron expression (5 fields, or 6 with seconds first) in a time zone (IANA name, UTC when
 * none), parsed once by croner: which instants it names. Day of month and day of week combine
 * with OR when both are restricted, as in Vixie cron.
 */
export class CronSchedule {
  readonly #cron: Cron;

  private constructor(cron: Cron) {
    this.#cron = cron;
  }

  /**
   * Parses `schedule` in `timezone`; throws INVALID_CRON (field `schedule` or `timezone`) for an
   * expression croner refuses, a time zone the runtime does not know, or one that names no time.
   * `minIntervalSeconds`: its coming times (the next 100) must lie at least this far apart.
   */
  static parse(schedule: string, timezone: string | null | undefined, minIntervalSeconds?: number): CronSchedule {
    if (typeof schedule !== "string" || schedule.trim() === "") throw invalidCron("schedule", "a cron expression is required (5 fields, or 6 with seconds first)");
    if (schedule.length > maxScheduleChars) throw invalidCron("schedule", `is longer than ${maxScheduleChars} characters`);
    if (timezone !== null && timezone !== undefined) checkTimezone(timezone);
    let cron: Cron;
    try {
      cron = new Cron(schedule, { timezone: timezone ?? "UTC", paused: true, mode: "5-or-6-parts" });
    } catch (error) {
      throw invalidCron("schedule", `${JSON.stringify(schedule)} is not a cron expression: ${(error as Error).message.replace(/^CronPattern: /, "")}`);
    }
    const parsed = new CronSchedule(cron);
    const coming = comingTimes(cron, new Date());
    if (coming.length === 0) throw invalidCron("schedule", `${JSON.stringify(schedule)} names no time to come`);
    if (minIntervalSeconds !== undefined) {
      let shortest = Infinity;
      for (let index = 1; index < coming.length; index++) shortest = Math.min(shortest, (coming[index] as Date).getTime() - (coming[index - 1] as Date).getTime());
      if (shortest < minIntervalSeconds * 1000) {
        throw invalidCron("schedule", `${JSON.stringify(schedule)} fires every ${shortest / 1000} s at times, below the minimum interval of ${minIntervalSeconds} s (crons.min_interval_seconds)`);
      }
    }
    return parsed;
  }

  /** The first time strictly after `after`, or undefined when none comes. */
  next(after: Date): Date | undefined {
    return this.#cron.nextRun(after) ?? undefined;
  }

  /** How many of its times lie in (`after`, `until`], counted up to `cap`. */
  countBetween(after: Date, until: Date, cap: number): number {
    let count = 0;
    let at: Date | undefined = after;
    while (count < cap && (at = this.next(at)) && at.getTime() <= until.getTime()) count++;
    return count;
  }
}

/** The first `intervalSample` times after `from`, those within `intervalHorizonMs` of the first. */
function comingTimes(cron: Cron, from: Date): Date[] {
  const times: Date[] = [];
  for (let at = cron.nextRun(from); at && times.length < intervalSample; at = cron.nextRun(at)) {
    times.push(at);
    if (at.getTime() - (times[0] as Date).getTime() > intervalHorizonMs) break;
  }
  return times;
}

/** An IANA time zone name the runtime knows (Intl), else INVALID_CRON on `timezone`. */
function checkTimezone(timezone: string): void {
  if (typeof timezone !== "string" || timezone === "") throw invalidCron("timezone", "an IANA time zone name is required, e.g. Europe/Berlin");
  if (timezone.length > maxTimezoneChars) throw invalidCron("timezone", `is longer than ${maxTimezoneChars} characters`);
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw invalidCron("timezone", `${JSON.stringify(timezone)} is not a time zone this server knows (an IANA name, e.g. Europe/Berlin)`);
  }
}
