import path from "node:path";
import type { ArchiveLimits, Config } from "@thinktank/core";
import { embedderFromConfig, SemanticStage } from "@thinktank/search";
import { defaultSkillSources } from "./skill-sources.js";
import type { SkillProblem, SkillSource } from "./skill-types.js";
import { SkillsService } from "./skills-service.js";
import type { SkillSettingsStore } from "./skills-service.js";
import { SkillsSnapshotter } from "./skills-snapshotter.js";

export interface CreateSkillsServiceOptions {
  /** The skills folder (config.skills.path): public/ and custom/ live in it. */
  readonly skillsRoot: string;
  readonly store: SkillSettingsStore;
  /** Virtual root the model sees (config.skills.container_path). @default "/mnt/skills" */
  readonly containerPath?: string;
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** More sources, asked on every snapshot: the enabled plugins' skills folders. @default none */
  readonly extraSources?: () => readonly SkillSource[] | Promise<readonly SkillSource[]>;
  /** @default true */
  readonly watch?: boolean;
  /** Told about each skipped SKILL.md, duplicate or bad setting when it first appears. */
  readonly onProblem?: (problem: SkillProblem) => void;
  /** config.search and config.env: with search.embeddings set, `search` ranks by keywords and meaning. @default keywords alone */
  readonly searchConfig?: Pick<Config, "search" | "env">;
}

/**
 * The usual wiring: a snapshotter over skills/public, skills/custom and any extra sources,
 * and a service that installs into skills/custom (a user's installs into skills/users/<folder>),
 * with each user's view over it. Close the service when done.
 */
export function createSkillsService(options: CreateSkillsServiceOptions): { service: SkillsService; snapshotter: SkillsSnapshotter } {
  const builtIn = defaultSkillSources(options.skillsRoot);
  const extra = options.extraSources;
  const snapshotter = new SkillsSnapshotter({
    sources: extra ? async () => [...builtIn, ...(await extra())] : builtIn,
    settings: options.store,
    containerPath: options.containerPath,
    watch: options.watch,
    onProblem: options.onProblem,
  });
  const service = new SkillsService({
    snapshotter,
    store: options.store,
    customRoot: path.join(options.skillsRoot, "custom"),
    skillsRoot: options.skillsRoot,
    limits: options.limits,
    containerPath: options.containerPath,
    semantic: semanticStageFor(options.searchConfig),
  });
  return { service, snapshotter };
}

function semanticStageFor(config: Pick<Config, "search" | "env"> | undefined): SemanticStage | undefined {
  const embedder = config ? embedderFromConfig(config) : undefined;
  return embedder ? new SemanticStage({ embedder, weight: config?.search.embeddings.weight }) : undefined;
}
