import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** A real git server for tests: git's own smart HTTP (`git http-backend`) behind a tiny node server on 127.0.0.1. */
export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`: repositories are at `<url>/<name>.git` (also `<url>/<owner>/<repo>.git`). */
  readonly url: string;
  /**
   * Commits `files` (relative path → content; `null` deletes; a folder's whole tree with
   * `{ from: folder }`, at "." for the top) to the repository `name` (created on first use, branch `main`), and
   * returns the new commit. Symbolic links: `{ link: target }`.
   */
  commit(name: string, files: Readonly<Record<string, GitFile>>, message?: string): string;
  /** Requests answered so far. */
  readonly requests: number;
  /** The Authorization header of each request, in order (to check where credentials go). */
  readonly authorizations: readonly (string | undefined)[];
  close(): Promise<void>;
}

export type GitFile = string | Buffer | null | { readonly link: string } | { readonly from: string };

function git(cwd: string, ...args: string[]): string {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "t@example.com" };
  return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/**
 * Starts the server over a fresh folder `root`: bare repositories `<root>/<name>.git`, each fed
 * from a work tree in `<root>/.work/<name>`. The bare repositories serve any commit by id
 * (`uploadpack.allowAnySHA1InWant`), as GitHub does, and refuse pushes.
 */
export async function startGitHttpServer(root: string): Promise<GitHttpServer> {
  fs.mkdirSync(path.join(root, ".work"), { recursive: true });
  let requests = 0;
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer((request, response) => {
    requests += 1;
    authorizations.push(request.headers.authorization);
    const url = new URL(request.url ?? "/", "http://localhost");
    const child = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        GIT_CONFIG_NOSYSTEM: "1",
        HOME: root,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? "GET",
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        REMOTE_ADDR: "127.0.0.1",
        ...(request.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(request.headers["content-encoding"]) } : {}),
        ...(request.headers["git-protocol"] ? { GIT_PROTOCOL: String(request.headers["git-protocol"]) } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    request.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else if (key) response.setHeader(key, value);
      }
      response.writeHead(status);
      response.write(head.subarray(end + 4));
    });
    child.on("close", () => response.end());
    child.on("error", () => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const commit = (name: string, files: Readonly<Record<string, GitFile>>, message = "update"): string => {
    const bare = path.join(root, `${name}.git`);
    const work = path.join(root, ".work", name);
    if (!fs.existsSync(bare)) {
      fs.mkdirSync(path.dirname(bare), { recursive: true });
      git(root, "init", "-q", "--bare", "-b", "main", bare);
      git(bare, "config", "uploadpack.allowAnySHA1InWant", "true");
      git(bare, "config", "http.receivepack", "false");
      git(root, "init", "-q", "-b", "main", work);
    }
    for (const [relative, content] of Object.entries(files)) {
      const target = path.join(work, relative);
      // "." with { from } fills the top of the tree; anything else replaces what was at its path.
      if (relative !== "." && relative !== "") fs.rmSync(target, { recursive: true, force: true });
      if (content === null) continue;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (typeof content === "object" && !Buffer.isBuffer(content) && "link" in content) fs.symlinkSync(content.link, target);
      else if (typeof content === "object" && !Buffer.isBuffer(content) && "from" in content) fs.cpSync(content.from, target, { recursive: true, verbatimSymlinks: true });
      else fs.writeFileSync(target, content);
    }
    git(work, "add", "-A");
    git(work, "commit", "-q", "--allow-empty", "-m", message);
    git(work, "push", "-q", "--force", bare, "HEAD:refs/heads/main");
    return git(work, "rev-parse", "HEAD");
  };

  return {
    url: `http://127.0.0.1:${port}`,
    commit,
    get requests() {
      return requests;
    },
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
