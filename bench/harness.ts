/**
 * The benchmark harness behind `npm run bench`. Each `bench/*.bench.ts` default-exports a
 * `Benchmark`; the runner executes them in order and writes docs/benchmarks.md. A figure is
 * always reported beside a baseline measured in the same run, and beside its target.
 */
export interface Measurement {
  /** What was measured, e.g. "snapshot + <skill_system>, 1,000 skills, unchanged". */
  readonly name: string;
  /** The headline value (usually a median) and its unit. */
  readonly value: number;
  readonly unit: string;
  /** Extra statistics shown in the table, e.g. { p95: 1.2, samples: 200 }. */
  readonly stats?: Readonly<Record<string, number | string>>;
  /** The baseline measured in the same run, e.g. { name: "plain Fastify route", value: 42000, unit: "req/s" }. */
  readonly baseline?: { readonly name: string; readonly value: number; readonly unit: string };
  /** The target from the issue, e.g. "p50 <= 2 ms", and whether it was met. */
  readonly target?: string;
  readonly pass?: boolean;
}

export interface Benchmark {
  /** Section title in the report. */
  readonly title: string;
  /** Which issue asks for these figures. */
  readonly issue?: number;
  run(context: BenchContext): Promise<Measurement[]>;
}

export interface BenchContext {
  /** Writes a progress line to stderr. */
  log(message: string): void;
  /** Root of the repository. */
  readonly root: string;
  /** The third-party corpus, or undefined when absent (benchmarks that need it say so). */
  readonly corpus: string | undefined;
}

export interface Summary {
  readonly samples: number;
  readonly median: number;
  readonly p95: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error("summarize: no samples");
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
  return { samples: sorted.length, median: at(0.5), p95: at(0.95), min: sorted[0] as number, max: sorted[sorted.length - 1] as number };
}

/** Times `fn` `samples` times after `warmup` untimed runs; returns milliseconds per run. */
export async function timeIt(fn: () => unknown, options: { samples?: number; warmup?: number } = {}): Promise<Summary> {
  const { samples = 100, warmup = 10 } = options;
  for (let i = 0; i < warmup; i++) await fn();
  const values: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    await fn();
    values.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summarize(values);
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
