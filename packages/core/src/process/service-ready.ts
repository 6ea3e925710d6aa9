/**
 * How a service started by `thinktank start` (over an IPC channel) tells it that it is listening.
 * Polling the port instead would be fooled by another program that already listens there.
 */
export interface ServiceReadyMessage {
  readonly type: "thinktank:listening";
  readonly url: string;
}

/** Tells the supervising process, if there is one, that this service listens on `url`. */
export function reportListening(url: string): void {
  if (typeof process.send === "function" && process.connected) process.send({ type: "thinktank:listening", url } satisfies ServiceReadyMessage);
}

export function isServiceReadyMessage(message: unknown): message is ServiceReadyMessage {
  const candidate = message as Partial<ServiceReadyMessage> | null;
  return typeof candidate === "object" && candidate !== null && candidate.type === "thinktank:listening" && typeof candidate.url === "string";
}
