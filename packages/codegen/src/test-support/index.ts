// @thinktank/codegen/testing: helpers for tests of packages that use the generated code API.
export { typeCheckFiles } from "./type-check-files.js";
