// The shared project folder and `thinktank gateway` as a child process now live in @thinktank/testing (the console's browser tests use them too).
export { gatewayRequest, makeProjectFixture, startGatewayProcess } from "@thinktank/testing";
export type { GatewayProcess, ProjectFixture, ProjectFixtureOptions } from "@thinktank/testing";
