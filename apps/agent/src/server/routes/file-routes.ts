import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import multipart from "@fastify/multipart";
import { ThinktankError, isThinktankError } from "@thinktank/core";
import { sendThreadFile, threadFileFolders, type IncomingFile, type ThreadFileFolder, type ThreadFiles } from "@thinktank/files";
import type { AgentRouteContext } from "../agent-route-context.js";
import { accessFor } from "../caller-hook.js";

interface ThreadParams {
  thread_id: string;
}
interface FileParams extends ThreadParams {
  folder: string;
  "*": string;
}

const mb = 1024 * 1024;
/** multipart's own errors, in our codes. */
const multipartCodes: Readonly<Record<string, ThinktankError["code"]>> = {
  FST_REQ_FILE_TOO_LARGE: "FILE_TOO_LARGE",
  FST_FILES_LIMIT: "TOO_MANY_FILES",
  FST_PARTS_LIMIT: "VALIDATION_FAILED",
  FST_FIELDS_LIMIT: "VALIDATION_FAILED",
  FST_PROTO_VIOLATION: "VALIDATION_FAILED",
  FST_INVALID_MULTIPART_CONTENT_TYPE: "UNSUPPORTED_MEDIA_TYPE",
};

/**
 * A thread's files (issue 26): upload into uploads/ (multipart, `file` fields, streamed), list a
 * folder, download one file (ETag, Range, safe headers), delete one. Each reads the thread first as
 * the caller (threads.get), so another owner's thread and its files answer 404 THREAD_NOT_FOUND.
 * Registered in a context of their own: @fastify/multipart (with files.* limits) parses only here,
 * and the 16 MB JSON body limit stays for every other route. The domain is @thinktank/files' ThreadFiles.
 */
export async function registerFileRoutes(app: FastifyInstance, context: AgentRouteContext & { readonly files: ThreadFiles }): Promise<void> {
  const { threads, files, config } = context;
  const limits = config.files;
  await app.register(multipart, {
    limits: {
      // One byte over, and one file more, than allowed: ThreadFiles sees it and answers with its own codes.
      fileSize: limits.max_file_mb * mb + 1,
      files: limits.max_files + 1,
      fields: 20,
      fieldSize: 64 * 1024,
      parts: limits.max_files + 21,
      headerPairs: 100,
    },
  });
  // Every answer of these routes, errors included: never sniffed into something that runs.
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-content-type-options", "nosniff");
  });

  app.post<{ Params: ThreadParams }>("/threads/:thread_id/files", async (request, reply) => {
    await threads.get(request.params.thread_id, accessFor(request));
    if (!request.isMultipart()) throw new ThinktankError("UNSUPPORTED_MEDIA_TYPE", "send multipart/form-data with one or more 'file' fields");
    const gone = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) gone.abort(new ThinktankError("BAD_REQUEST", "the client went away"));
    });
    try {
      const stored = await files.upload(request.params.thread_id, fileParts(request), gone.signal);
      return reply.code(201).send({
        files: stored.map((record) => ({
          name: record.name,
          path: record.path,
          size: record.size,
          sha256: record.sha256,
          mime_type: record.mime_type,
          ...(record.converted ? { converted: record.converted } : {}),
          ...(record.conversion_error !== undefined ? { conversion_error: record.conversion_error } : {}),
        })),
      });
    } catch (error) {
      // The rest of a refused body is not read: the connection closes after the answer.
      reply.header("connection", "close");
      throw asThinktankError(error);
    }
  });

  app.get<{ Params: ThreadParams; Querystring: { folder?: string } }>(
    "/threads/:thread_id/files",
    { schema: { querystring: { type: "object", properties: { folder: { enum: [...threadFileFolders] } } } } },
    async (request) => {
      await threads.get(request.params.thread_id, accessFor(request));
      const folder = (request.query.folder ?? "uploads") as ThreadFileFolder;
      const listing = await files.list(request.params.thread_id, folder);
      return { folder, files: listing.files, truncated: listing.truncated };
    },
  );

  app.get<{ Params: FileParams }>("/threads/:thread_id/files/:folder/*", async (request, reply) => {
    await threads.get(request.params.thread_id, accessFor(request));
    const opened = await files.open(request.params.thread_id, folderOf(request.params.folder), request.params["*"]);
    try {
      const answer = await sendThreadFile(request.raw, opened);
      reply.code(answer.statusCode).headers(answer.headers);
      return answer.stream ? reply.send(answer.stream) : reply.send();
    } catch (error) {
      if (isThinktankError(error) && error.code === "RANGE_NOT_SATISFIABLE") reply.header("content-range", String((error.details as { contentRange?: string } | undefined)?.contentRange ?? ""));
      throw error;
    }
  });

  app.delete<{ Params: FileParams }>("/threads/:thread_id/files/:folder/*", async (request, reply: FastifyReply) => {
    await threads.get(request.params.thread_id, accessFor(request));
    await files.remove(request.params.thread_id, folderOf(request.params.folder), request.params["*"]);
    return reply.code(204).send();
  });
}

/** The request's `file` parts, one at a time (each consumed before the next is read); other fields are skipped. */
async function* fileParts(request: FastifyRequest): AsyncIterable<IncomingFile> {
  for await (const part of request.parts()) {
    if (part.type !== "file") continue;
    if (part.fieldname !== "file") {
      part.file.resume();
      throw new ThinktankError("VALIDATION_FAILED", `unexpected file field '${part.fieldname}': send each file as a 'file' field`);
    }
    yield { filename: part.filename, stream: part.file };
  }
}

function folderOf(folder: string): ThreadFileFolder {
  if (!(threadFileFolders as readonly string[]).includes(folder)) throw new ThinktankError("VALIDATION_FAILED", `folder: expected one of ${threadFileFolders.join(", ")}, got ${JSON.stringify(folder)}`);
  return folder as ThreadFileFolder;
}

function asThinktankError(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (!isThinktankError(error) && code !== undefined && multipartCodes[code]) {
    return new ThinktankError(multipartCodes[code], (error as Error).message);
  }
  return error;
}
