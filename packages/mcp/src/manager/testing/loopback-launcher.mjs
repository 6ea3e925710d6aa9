#!/usr/bin/env node
// Runs a Node server script with every HTTP listener pinned to 127.0.0.1, for reference servers
// (server-everything's sse / streamableHttp modes) that otherwise listen on all interfaces.
// Usage: node loopback-launcher.mjs <script.js> [args...]   (the script sees only its own args)
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [script, ...args] = process.argv.slice(2);
if (!script) {
  process.stderr.write("usage: loopback-launcher.mjs <script.js> [args...]\n");
  process.exit(2);
}
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...listenArgs) {
  const [port] = listenArgs;
  if (typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) {
    const callback = listenArgs.find((arg) => typeof arg === "function");
    return listen.call(this, Number(port), "127.0.0.1", callback);
  }
  return listen.apply(this, listenArgs);
};
process.argv = [process.argv[0], path.resolve(script), ...args];
await import(pathToFileURL(path.resolve(script)).href);
