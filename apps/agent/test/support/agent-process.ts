// The agent server as a child process now lives in @thinktank/testing (the console's browser tests start it too).
export { runAgentProcessToExit, startAgentProcess, testEnv } from "@thinktank/testing";
export type { AgentProcess } from "@thinktank/testing";
