// Public API of @thinktank/codegen: what other packages, apps and bench/ use, and what README.md
// documents (the contract itself is docs/code-api.md). Everything else is internal to the package.
export { generateCodeApi } from "./generate/generate-code-api.js";
export type { GenerateCodeApiOptions, GenerateCodeApiResult } from "./generate/generate-code-api.js";
export type { CodeApiLanguage, CodegenServer } from "./generate/codegen-types.js";
export { buildCodeApiIndex } from "./names/code-api-index.js";
export type { CodeApiIndex, CodeApiToolEntry } from "./names/code-api-index.js";
export { renderTypeScriptTool } from "./typescript/render-typescript-tool.js";
export { renderPythonTool } from "./python/render-python-tool.js";
