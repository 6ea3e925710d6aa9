// A light entry of @thinktank/runs (`@thinktank/runs/sql`): the threads database's SQL layer without
// LangGraph (pg only once Postgres is used), for other tables kept in that database (packages/identity).
// src/index.ts re-exports it.
export { openSqliteConnection, openPostgresConnection, listenOnPostgres } from "./persistence/sql-connection.js";
export type { SqlConnection } from "./persistence/sql-connection.js";
export type { SqlDatabase, SqlDialect, SqlStatement } from "./persistence/sql-database.js";
export { columnList, createTablesSql, placeholders, recordOf, rowParameters } from "./persistence/schema.js";
export type { Column, Table } from "./persistence/schema.js";
export type { PostgresListener, PostgresListenerOptions } from "./persistence/postgres-listener.js";
