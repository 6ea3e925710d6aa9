// Public API of @thinktank/codegen: every export is listed here by name.
export { generateCodeApi } from "./generate/generate-code-api.js";
export type { GenerateCodeApiOptions, GenerateCodeApiResult } from "./generate/generate-code-api.js";
export type { CodeApiLanguage, CodegenServer, CodegenTool, CodegenWarning } from "./generate/codegen-types.js";
export { readCodeApiManifest, manifestFileName, codegenVersion } from "./generate/code-api-manifest.js";
export type { CodeApiManifest, CodeApiManifestServer } from "./generate/code-api-manifest.js";
export { buildCodeApiIndex, defaultCodeApiMountPath } from "./names/code-api-index.js";
export type { CodeApiIndex, CodeApiIndexOptions, CodeApiServerEntry, CodeApiToolEntry } from "./names/code-api-index.js";
export { renderTypeScriptTool } from "./typescript/render-typescript-tool.js";
export { renderPythonTool } from "./python/render-python-tool.js";
