import crypto from "node:crypto";
import os from "node:os";
import { operatorId, type Config } from "@thinktank/core";
import type { Identity } from "@thinktank/identity";
import { CronScheduler, CronService, type Access, type AgentStore, type CronFire, type RunManager, type ThreadService } from "@thinktank/runs";

export interface AgentCrons {
  readonly service: CronService;
  readonly scheduler: CronScheduler;
}

export interface OpenCronsOptions {
  readonly store: AgentStore;
  readonly runs: RunManager;
  readonly threads: ThreadService;
  readonly identity: Identity;
  /** The assistant a cron names, as its creator reaches it: the rule runs use. */
  readonly resolveAssistant: (assistantId: string, access: Access) => Promise<{ readonly assistant_id: string }>;
  readonly clock: () => Date;
  readonly log: { info(fields: object, message: string): void; error(fields: object, message: string): void };
  /** Hears each fire (tests, the benchmark). @default none */
  readonly onFire?: (fire: CronFire) => void;
}

/**
 * Crons of this agent server, from `crons.*` (undefined when `crons.enabled` is false): the service
 * the routes call and the scheduler that fires them. On Postgres every replica runs a scheduler;
 * they split the fires through claims in the database and hear each other's changes over NOTIFY,
 * and a replica's claim goes stale after `agent.runs.stale_after_seconds`. On SQLite one process
 * fires, and a claim it finds from an earlier process is taken over at once.
 */
export async function openCrons(config: Config, options: OpenCronsOptions): Promise<AgentCrons | undefined> {
  const crons = config.crons;
  if (!crons.enabled) return undefined;
  const { store, identity, log } = options;
  const shared = store.listenForCrons !== undefined;
  const scheduler = new CronScheduler({
    store: store.crons,
    runs: options.runs,
    runExists: async (runId) => (await store.metadata.getRun(runId)) !== undefined,
    ownerAccess: (ownerId) => ownerAccess(identity, ownerId),
    clock: options.clock,
    replicaId: `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
    staleAfterMs: shared ? config.agent.runs.stale_after_seconds * 1000 : 0,
    pollMs: config.agent.runs.heartbeat_seconds * 1000,
    maxConsecutiveFailures: crons.max_consecutive_failures,
    onMissed: crons.on_missed,
    missedAfterMs: crons.missed_after_seconds * 1000,
    listen: store.listenForCrons ? (onChange) => (store.listenForCrons as NonNullable<AgentStore["listenForCrons"]>)(onChange, log) : undefined,
    onFire: options.onFire,
    log,
  });
  const service = new CronService({
    store: store.crons,
    threads: options.threads,
    resolveAssistant: options.resolveAssistant,
    clock: options.clock,
    minIntervalSeconds: crons.min_interval_seconds,
    maxPerOwner: crons.max_per_owner,
    changed: () => scheduler.wake(),
  });
  return { service, scheduler };
}

/**
 * Whom a cron's fires run as: its owner as they are now. The operator and administrators reach any
 * thread by id (a cron an administrator made on a user's thread fires there); a user is a user; a
 * deleted user's crons pause (undefined). JWT users are not in the directory: they stay users.
 */
async function ownerAccess(identity: Identity, ownerId: string): Promise<Access | undefined> {
  if (ownerId === operatorId) return { owner: ownerId, anyById: true, everyone: false };
  if (ownerId.startsWith("jwt:")) return { owner: ownerId, anyById: false, everyone: false };
  const user = await identity.users.get(ownerId);
  if (!user) return undefined;
  return { owner: ownerId, anyById: user.role === "admin", everyone: false };
}
