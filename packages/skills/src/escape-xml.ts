// XML escaping lives in core (the files package renders markup too); skills and plugins keep importing it from here.
export { escapeXml } from "@thinktank/core";
