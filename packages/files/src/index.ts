// Public API of @thinktank/files: what other packages and apps use, and what README.md documents.
export {};
