// Public API of @thinktank/testing: every export is listed here by name.
export { corpusDir, corpusLocation, repositoryRoot } from "./corpus.js";
export { anthropicSkillsRepository, copyFromCorpus } from "./corpus-repositories.js";
export { startGitHttpServer } from "./git-http-server.js";
export type { GitHttpServer, GitFile } from "./git-http-server.js";
export { startNpmRegistryServer } from "./npm-registry-server.js";
export type { NpmRegistryServer } from "./npm-registry-server.js";
export { startHangingServer, startFloodServer } from "./stalling-http-servers.js";
export type { HangingServer, FloodServer } from "./stalling-http-servers.js";
export { needs, missingReason, browserPath } from "./optional-parts.js";
export type { OptionalPart, MissingPart } from "./optional-parts.js";
export { makeTempDir, writeTree } from "./temp-dir.js";
export { freePort } from "./free-port.js";
export { processesWithMarker } from "./processes-with-marker.js";
export { startEmbeddingsServer } from "./embeddings-server.js";
export type { EmbeddingsServer, EmbeddingsRequest } from "./embeddings-server.js";
export { seededRandom } from "./seeded-random.js";
export { rawHttpRequest } from "./raw-http-request.js";
export type { RawHttpAnswer } from "./raw-http-request.js";
