/**
 * The router's longest path parameter (Fastify's routerOptions.maxParamLength) for both services:
 * longer than any path segment a request line Node accepts can hold (16 KiB of headers by default),
 * so every segment reaches its route's own rule (the thread-id rule, a name's schema) and gets that
 * rule's 400 answer, instead of the router's 414 with Fastify's own body. Our routes have no regex
 * parameters, whose cost the router's default of 100 exists to bound.
 */
export const maxPathParamLength = 16 * 1024;
