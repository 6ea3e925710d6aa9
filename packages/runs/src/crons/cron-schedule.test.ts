// CronSchedule against hostile schedules: sub-minimum intervals however written (steps, lists,
// ranges, `?`), forms croner refuses (@every, @reboot, 7 fields), patterns that name no time, an
// over-long schedule or time zone (refused before parsing, errors kept short), and rare patterns
// (a leap day's last second) checked in a bounded time rather than a hundred multi-year scans.
import { Cron } from "croner";
import { describe, expect, it, vi } from "vitest";
import { CronSchedule } from "./cron-schedule.js";

const refused = (schedule: string, timezone?: string, min = 60) => {
  try {
    CronSchedule.parse(schedule, timezone, min);
  } catch (error) {
    return error as { code: string; message: string; details: { field: string } };
  }
  return undefined;
};

describe("CronSchedule.parse against hostile schedules", () => {
  it("refuses every way of firing more often than the minimum", () => {
    for (const schedule of ["*/1 * * * * *", "? * * * * *", "0,1,2,3 * * * * *", "0,59 * * * * *", "0-59/30 * * * * *", "1-2/1 * * * * *", "0-1 0 0 * * *", "0 0,1 * * * *"]) {
      const min = schedule === "0 0,1 * * * *" ? 3600 : 60;
      expect([schedule, refused(schedule, undefined, min)?.details.field]).toEqual([schedule, "schedule"]);
    }
    expect(refused("0 8 * * 1-5", "Europe/Berlin")).toBeUndefined();
    expect(refused("@hourly")).toBeUndefined();
  });

  it("refuses forms croner does not take and patterns that name no time", () => {
    for (const schedule of ["@every 1s", "@reboot", "* * * * * * *", "L * * * * *", "0 0 30 2 *", "0 0 31 4 *"]) {
      expect([schedule, refused(schedule)?.code]).toEqual([schedule, "INVALID_CRON"]);
    }
  });

  it("refuses an over-long schedule or time zone before parsing it, with a short message", () => {
    const list = `${Array.from({ length: 100_000 }, () => "5").join(",")} 0 * * *`;
    const long = refused(list);
    expect(long).toMatchObject({ code: "INVALID_CRON", details: { field: "schedule" } });
    expect(long?.message.length).toBeLessThan(200);
    const zone = refused("0 8 * * *", "A".repeat(100_000));
    expect(zone).toMatchObject({ code: "INVALID_CRON", details: { field: "timezone" } });
    expect(zone?.message.length).toBeLessThan(200);
  });

  it("checks a rare pattern's interval over a year's times, not a hundred multi-year scans", () => {
    // Each search of croner's (its internal _nextTarget, behind nextRun and nextRuns) scans up to years
    // for a leap day: a hundred of them cost about 0.1 s of one core (0.6 s cold), blocking the server, per request.
    const searches = vi.spyOn(Cron.prototype as unknown as { _nextTarget: () => unknown }, "_nextTarget");
    try {
      for (const schedule of ["59 59 23 29 2 *", "0 0 0 29 2 5L"]) {
        searches.mockClear();
        CronSchedule.parse(schedule, undefined, 60);
        expect([schedule, searches.mock.calls.length <= 3]).toEqual([schedule, true]);
      }
      // A daily schedule still compares its next hundred times.
      searches.mockClear();
      CronSchedule.parse("0 8 * * *", "Europe/Berlin", 60);
      expect(searches.mock.calls.length).toBeGreaterThanOrEqual(100);
    } finally {
      searches.mockRestore();
    }
  });
});
