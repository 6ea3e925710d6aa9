// Public API of @thinktank/gateway: every export is listed here by name.
export {};
