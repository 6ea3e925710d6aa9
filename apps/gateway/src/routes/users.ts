import fs from "node:fs";
import { ThinktankError, userCodeApiDir } from "@thinktank/core";
import type { UserRecord } from "@thinktank/identity";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

const roleSchema = { type: "string", enum: ["user", "admin"], description: "admin: everything; user: their own threads, skills, choices, servers and sign-ins, and the catalog" } as const;
const idParams = { type: "object", required: ["id"], properties: { id: { type: "string", pattern: "^usr_[A-Za-z0-9]{1,64}$", description: "usr_<hex>" } } } as const;
const keyParams = { type: "object", required: ["id", "key_id"], properties: { ...idParams.properties, key_id: { type: "string", pattern: "^[A-Za-z0-9]{1,64}$" } } } as const;
const createBody = {
  type: "object",
  required: ["name", "role"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9][A-Za-z0-9 ._@-]*$", description: "Shown as the caller's name: 1 to 64 letters, digits, spaces and . _ @ -, starting with a letter or digit" },
    role: roleSchema,
  },
} as const;
const keySchema = {
  type: "object",
  required: ["id", "created_at"],
  properties: { id: { type: "string", description: "The key id (its key reads tt_u_<id>_<secret>)" }, created_at: { type: "string" }, last4: { type: "string", description: "The secret's last four characters, to tell keys apart" } },
} as const;
const userSchema = {
  type: "object",
  required: ["id", "name", "role", "created_at", "keys"],
  properties: { id: { type: "string" }, name: { type: "string" }, role: roleSchema, created_at: { type: "string" }, keys: { type: "array", items: keySchema, description: "Its keys (never the secret)" } },
} as const;
const apiKeyDescription = "The key, shown only in this answer (stored hashed): send it as X-API-Key or Authorization: Bearer";
const meSchema = {
  type: "object",
  required: ["id", "name", "role", "auth"],
  properties: {
    id: { type: "string", description: "admin (the operator), usr_<hex> (a user an administrator made) or jwt:<claim> (a token's user)" },
    name: { type: "string" },
    role: roleSchema,
    auth: { type: "string", enum: ["key", "jwt", "local"], description: "How the caller proved who they are (local: no credentials on a key-less loopback service)" },
  },
} as const;

/** /api/users (administrators: users and their keys) and /api/me (any caller: who am I). */
const usersRoutes: RoutePlugin = async (app, { config, identity, deps }) => {
  const users = () => identity().users;
  const found = async (id: string): Promise<UserRecord> => {
    const user = await users().get(id);
    if (!user) throw userNotFound(id);
    return user;
  };

  app.get(
    "/api/me",
    { config: { access: "user" }, schema: { summary: "Who calls: id, name, role and how they proved it", tags: ["users"], response: { 200: meSchema, ...errorResponses(401, 500) } } },
    async (request) => {
      const { id, name, role, auth } = request.caller!;
      return { id, name, role, auth };
    },
  );

  app.post<{ Body: { name: string; role: "user" | "admin" } }>(
    "/api/users",
    {
      config: { access: "admin", audit: "user.create", auditFields: ["name", "role"] },
      schema: {
        summary: "Create a user, with a first key (shown once)",
        tags: ["users"],
        body: createBody,
        response: {
          201: { type: "object", required: ["id", "name", "role", "key_id", "api_key"], properties: { id: { type: "string" }, name: { type: "string" }, role: roleSchema, created_at: { type: "string" }, key_id: { type: "string" }, api_key: { type: "string", description: apiKeyDescription } } },
          ...errorResponses(400, 401, 403, 409, 500),
        },
      },
    },
    async (request, reply) => {
      const { user, apiKey } = await users().create({ name: request.body.name, role: request.body.role });
      request.audit = { target: user.id };
      request.log.info({ user: user.id, role: user.role }, "user created");
      return reply.status(201).send({ id: user.id, name: user.name, role: user.role, created_at: user.created_at, key_id: user.keys[0]?.id, api_key: apiKey });
    },
  );

  app.get(
    "/api/users",
    { config: { access: "admin" }, schema: { summary: "List users and their keys (never a secret)", tags: ["users"], response: { 200: { type: "object", required: ["users"], properties: { users: { type: "array", items: userSchema } } }, ...errorResponses(401, 403, 500) } } },
    async () => ({ users: await users().list() }),
  );

  app.get<{ Params: { id: string } }>(
    "/api/users/:id",
    { config: { access: "admin" }, schema: { summary: "One user and their keys", tags: ["users"], params: idParams, response: { 200: userSchema, ...errorResponses(400, 401, 403, 404, 500) } } },
    async (request) => found(request.params.id),
  );

  app.delete<{ Params: { id: string } }>(
    "/api/users/:id",
    {
      config: { access: "admin", audit: "user.delete" },
      schema: { summary: "Delete a user: their keys stop working at once, on every replica within a second; their sign-ins, own skills and agents, memory, choices and servers go with them", tags: ["users"], params: idParams, response: { 204: { type: "null", description: "Deleted" }, ...errorResponses(400, 401, 403, 404, 500) } },
    },
    async (request, reply) => {
      if (!(await users().remove(request.params.id))) throw userNotFound(request.params.id);
      // What was theirs goes with them (a user id is never reused): MCP sign-ins (tokens are secrets),
      // their own skills and choices, then whatever else their entry in extensions_config.json held (their own servers).
      const id = request.params.id;
      await deps.mcpOAuth?.store.forgetUser(id);
      await deps.skills?.forgetUser(id);
      await deps.agents?.forgetUser(id);
      await deps.memory?.forUser(id).clear();
      // The typed wrappers code mode generated for their own servers (on this host).
      fs.rmSync(userCodeApiDir(config.code_execution.code_api_dir, id), { recursive: true, force: true });
      await deps.store.update((draft) => {
        if (draft.users && Object.hasOwn(draft.users, id)) delete draft.users[id];
      });
      request.log.info({ user: id }, "user deleted");
      return reply.status(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    "/api/users/:id/keys",
    {
      config: { access: "admin", audit: "key.create" },
      schema: {
        summary: "Give a user a new key (shown once); their other keys keep working until deleted",
        tags: ["users"],
        params: idParams,
        response: { 201: { type: "object", required: ["key_id", "api_key"], properties: { key_id: { type: "string" }, api_key: { type: "string", description: apiKeyDescription } } }, ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      const added = await users().addKey(request.params.id);
      if (!added) throw userNotFound(request.params.id);
      request.audit = { target: `${request.params.id}/${added.keyId}` };
      request.log.info({ user: request.params.id, key: added.keyId }, "key created");
      return reply.status(201).send({ key_id: added.keyId, api_key: added.apiKey });
    },
  );

  app.delete<{ Params: { id: string; key_id: string } }>(
    "/api/users/:id/keys/:key_id",
    {
      config: { access: "admin", audit: "key.delete" },
      schema: { summary: "Delete one of a user's keys: it stops working at once, on every replica within a second", tags: ["users"], params: keyParams, response: { 204: { type: "null", description: "Deleted" }, ...errorResponses(400, 401, 403, 404, 500) } },
    },
    async (request, reply) => {
      const { id, key_id: keyId } = request.params;
      const user = await found(id);
      if (!user.keys.some((key) => key.id === keyId) || !(await users().removeKey(id, keyId))) {
        throw new ThinktankError("KEY_NOT_FOUND", `user ${id} has no key ${keyId}`, { details: { id, key_id: keyId } });
      }
      request.log.info({ user: id, key: keyId }, "key deleted");
      return reply.status(204).send();
    },
  );
};

function userNotFound(id: string): ThinktankError {
  return new ThinktankError("USER_NOT_FOUND", `no user ${id}`, { details: { id } });
}

export default usersRoutes;
