// Public API of @thinktank/mcp: every export is listed here by name.
export {};
