// Issue 26: uploading a thread's files. A real agent server process (apps/agent/src/start.ts) takes
// 200 MB uploads over loopback (multipart, streamed from the client, which holds one 256 KB chunk):
// throughput, median of runs, beside downloading the same file from the same server (the same HTTP
// stack and disk, without multipart parsing, hashing or the commit); and the agent's RSS growth during
// an upload (sampled from /proc every 10 ms), beside its growth during the download.
import http from "node:http";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";
import { startLoadAgent, type LoadAgent } from "./load-driver.js";

const mib = 1024 * 1024;
const fileMiB = 200;
const runs = 5;
const rssTarget = 32;
const boundary = "----thinktank-bench-boundary";
const chunk = Buffer.alloc(256 * 1024, 0x61);

interface Timed {
  readonly seconds: number;
  /** Highest RSS of the agent seen during the transfer, in MiB. */
  readonly peakMiB: number;
}

/** Samples the agent's RSS every 10 ms while `work` runs. */
async function sampled(agent: LoadAgent, work: () => Promise<void>): Promise<Timed> {
  let peak = agent.rssMiB();
  const sampler = setInterval(() => (peak = Math.max(peak, agent.rssMiB())), 10);
  const start = process.hrtime.bigint();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, peakMiB: Math.max(peak, agent.rssMiB()) };
}

/** POSTs one file of `size` bytes as a multipart `file` field, written chunk by chunk with backpressure. */
function upload(url: string, name: string, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const request = http.request(url, { method: "POST", headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + size + tail.length } }, (response) => {
      let body = "";
      response.on("data", (data: Buffer) => (body += data.toString()));
      response.on("end", () => (response.statusCode === 201 ? resolve() : reject(new Error(`upload answered ${response.statusCode}: ${body}`))));
    });
    request.on("error", reject);
    const write = (data: Buffer) => (request.write(data) ? Promise.resolve() : new Promise<void>((ready) => request.once("drain", () => ready())));
    void (async () => {
      await write(head);
      for (let left = size; left > 0; left -= chunk.length) await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
      request.end(tail);
    })().catch(reject);
  });
}

/** GETs a URL and throws the body away; resolves with its length. */
function download(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, (response) => {
      let bytes = 0;
      response.on("data", (data: Buffer) => (bytes += data.length));
      response.on("end", () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`download answered ${response.statusCode}`))));
    }).on("error", reject);
  });
}

async function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const response = await fetch(url, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const benchmark: Benchmark = {
  title: "Thread files: upload throughput and the agent's memory during a 200 MB upload",
  issue: 26,
  async run(context: BenchContext): Promise<Measurement[]> {
    const agent = await startLoadAgent({ root: context.root, config: ["files:", `  max_file_mb: ${fileMiB}`, "  max_thread_mb: 2000"] });
    try {
      const { thread_id: thread } = (await call(`${agent.url}/threads`, "POST", {})) as { thread_id: string };
      const files = `${agent.url}/threads/${thread}/files`;
      const size = fileMiB * mib;
      // Warm: the routes, multipart and the hashing code loaded, buffers grown once.
      await upload(files, "warm.bin", 16 * mib);
      await download(`${files}/uploads/warm.bin`);
      const uploads: Timed[] = [];
      const downloads: Timed[] = [];
      const growth: number[] = [];
      const downloadGrowth: number[] = [];
      for (let index = 0; index < runs; index++) {
        const before = agent.rssMiB();
        const up = await sampled(agent, () => upload(files, "big.bin", size));
        uploads.push(up);
        growth.push(up.peakMiB - before);
        const beforeDown = agent.rssMiB();
        const down = await sampled(agent, async () => {
          if ((await download(`${files}/uploads/big.bin`)) !== size) throw new Error("the download is not the upload's size");
        });
        downloads.push(down);
        downloadGrowth.push(down.peakMiB - beforeDown);
        await call(`${files}/uploads/big.bin`, "DELETE");
        context.log(`run ${index + 1}: upload ${round(fileMiB / up.seconds, 0)} MB/s (+${round(up.peakMiB - before, 1)} MiB RSS), download ${round(fileMiB / down.seconds, 0)} MB/s (+${round(down.peakMiB - beforeDown, 1)} MiB)`);
      }
      const upRate = summarize(uploads.map((timed) => fileMiB / timed.seconds));
      const downRate = summarize(downloads.map((timed) => fileMiB / timed.seconds));
      const rss = summarize(growth);
      const downRss = summarize(downloadGrowth);
      return [
        {
          name: `upload of one ${fileMiB} MiB file (multipart, streamed to disk, SHA-256, committed), loopback`,
          value: round(upRate.median, 0),
          unit: "MiB/s",
          baseline: { name: "GET of the same file from the same server", value: round(downRate.median, 0), unit: "MiB/s" },
          stats: { runs, min: round(upRate.min, 0), max: round(upRate.max, 0) },
        },
        {
          name: `agent RSS growth during a ${fileMiB} MiB upload (peak over the RSS before it)`,
          value: round(rss.max, 1),
          unit: "MiB (worst run)",
          baseline: { name: "during the GET of it", value: round(downRss.max, 1), unit: "MiB" },
          target: `<= ${rssTarget} MiB`,
          pass: rss.max <= rssTarget,
          stats: { median: round(rss.median, 1), runs, "RSS before, MiB": round(agent.rssMiB(), 0) },
        },
      ];
    } finally {
      await agent.stop();
    }
  },
};

export default benchmark;
