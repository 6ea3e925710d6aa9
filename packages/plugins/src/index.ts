// Public API of @thinktank/plugins: every export is listed here by name.
export {};
