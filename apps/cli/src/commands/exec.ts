import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ThinktankError } from "@thinktank/core";
import { CodeMode, McpToolInvoker, codeLanguages, type CodeLanguage, type ExecuteCodeResult } from "@thinktank/codemode";
import { createSandboxExecutor } from "@thinktank/sandbox";
import type { CliCommand } from "../cli-command.js";
import { openMcpContext } from "./mcp-context.js";

const usageLine = "exec FILE|- [--language typescript|javascript|python] [--timeout S] [--thread ID] [--json]";

/**
 * `thinktank exec FILE|-`: runs a program exactly as execute_code would (bundled on the host for
 * TypeScript/JavaScript, in the configured sandbox, with the code API of the configured servers and
 * the bridge). The program's stdout and stderr are passed through and its exit code returned;
 * `--json` prints execute_code's whole result instead. No server is connected up front: those whose
 * wrappers the program imports connect before it is built, any other on its first call.
 */
export const execCommand: CliCommand = {
  name: "exec",
  summary: "Run a program as execute_code would: in the sandbox, with the configured MCP servers",
  usage: [`${usageLine}   the language follows the file extension; - reads the program from stdin`],
  async run(args, io) {
    let options: ExecOptions;
    try {
      options = parseOptions(args);
    } catch (error) {
      io.stderr.write(`thinktank exec: ${(error as Error).message}\nUsage: thinktank ${usageLine}\n`);
      return 2;
    }
    const code = options.file === "-" ? await readStream(io.stdin) : readProgram(path.resolve(io.cwd, options.file));
    const context = await openMcpContext(io);
    // One run: workers kept warm for later runs would only be started and stopped again.
    const config = { ...context.config, sandbox: { ...context.config.sandbox, warm_pool_size: 0 } };
    const executor = createSandboxExecutor({ config, ...(config.env.PATH ? { searchPath: config.env.PATH } : {}) });
    // No background discovery: a one-shot run connects only what its program uses.
    const codeMode = new CodeMode({ config, executor, invokers: [new McpToolInvoker(context.manager, { background: false })], network: config.sandbox.network.allow });
    try {
      const result = await codeMode.executeCode({ code, language: options.language, ...(options.timeout !== undefined ? { timeout: options.timeout } : {}) }, { threadId: options.thread });
      if (options.json) {
        const { backend, isolated, isolation, fallback, memory } = await executor.describeBackend();
        io.stdout.write(`${JSON.stringify({ ...result, sandbox: { backend, isolated, isolation, ...(fallback ? { fallback } : {}), memory } }, null, 2)}\n`);
      } else {
        io.stdout.write(result.stdout);
        io.stderr.write(result.stderr);
        if (result.stderr !== "" && !result.stderr.endsWith("\n") && (result.error || io.stderr.isTTY)) io.stderr.write("\n");
        if (io.stderr.isTTY && result.tools_called.length > 0) io.stderr.write(auditLine(result));
        if (result.error) io.stderr.write(`thinktank exec: ${result.error.code}: ${result.error.message}\n`);
      }
      return result.exit_code ?? 1;
    } finally {
      await codeMode.close();
      await context.close();
      await executor.close();
    }
  },
};

interface ExecOptions {
  readonly file: string;
  readonly language: CodeLanguage;
  readonly timeout: number | undefined;
  readonly thread: string;
  readonly json: boolean;
}

function parseOptions(args: string[]): ExecOptions {
  const { values, positionals } = parseArgs({
    args,
    options: {
      language: { type: "string", short: "l" },
      timeout: { type: "string", short: "t" },
      thread: { type: "string", default: "cli" },
      json: { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new Error(`expected one FILE (or - for stdin), got ${positionals.length === 0 ? "none" : positionals.join(" ")}`);
  const file = positionals[0] as string;
  const language = values.language ?? languageOf(file);
  if (!codeLanguages.includes(language as CodeLanguage)) throw new Error(`--language must be one of ${codeLanguages.join(", ")}, got '${language}'`);
  let timeout: number | undefined;
  if (values.timeout !== undefined) {
    timeout = Number(values.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new Error(`--timeout expects seconds (a positive number), got '${values.timeout}'`);
  }
  return { file, language: language as CodeLanguage, timeout, thread: values.thread, json: values.json };
}

function languageOf(file: string): string {
  const extension = path.extname(file).toLowerCase();
  if (extension === ".py") return "python";
  if ([".js", ".mjs", ".cjs"].includes(extension)) return "javascript";
  return "typescript";
}

function readProgram(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `cannot read the program ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

function auditLine(result: ExecuteCodeResult): string {
  const calls = result.tools_called.map((call) => `${call.tool} ${call.status === "ok" ? "ok" : (call.error?.code ?? "error")} ${Math.round(call.ms)} ms`);
  const more = result.tools_called_omitted ? ` (+${result.tools_called_omitted} more)` : "";
  return `[tools called: ${calls.join(", ")}${more}]\n`;
}
