import type { CodegenServer } from "../generate/codegen-types.js";

/** One server whose tools cover every JSON Schema construct the generator handles. Test support only. */
export const trickyServer: CodegenServer = {
  server: "tricky:Server.v2",
  tools: [
    {
      name: "objects",
      description: "Objects with odd keys. A description that tries to end the comment */ and starts\n@param a fake tag.",
      inputSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "The name */ evil", minLength: 1, maxLength: 10, pattern: "^[a-z]+$" },
          count: { type: "integer", minimum: 0, maximum: 5, default: 1, description: 'Ends with a quote "' },
          "odd-key": { type: "string" },
          "with space": { type: "boolean" },
          "0digit": { type: "number", exclusiveMinimum: 0 },
          class: { type: "string", format: "email", description: 'Triple """ quotes and a back\\slash' },
          __typename: { type: "string" },
        },
        required: ["name", "class", "missing_declared"],
        additionalProperties: false,
      },
    },
    {
      name: "additional",
      inputSchema: {
        type: "object",
        properties: {
          typed: { type: "object", properties: { id: { type: "string" } }, additionalProperties: { type: "number" } },
          open: { type: "object", properties: { a: { type: "string" } } },
          map: { type: "object", additionalProperties: { type: "boolean" } },
          patterned: { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
          empty: { type: "object", properties: {}, additionalProperties: false },
        },
      },
    },
    {
      name: "arrays",
      inputSchema: {
        type: "object",
        properties: {
          list: { type: "array", items: { type: "string" } },
          tuple: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false, minItems: 2 },
          oldTuple: { type: "array", items: [{ type: "string" }, { type: "boolean" }], minItems: 1 },
          matrix: { type: "array", items: { type: "array", items: { type: "number" } } },
          mixed: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
          untyped: { type: "array" },
        },
      },
    },
    {
      name: "enums",
      inputSchema: {
        type: "object",
        properties: {
          color: { type: "string", enum: ["red", "green"], description: "A colour." },
          level: { type: "integer", enum: [1, 2, 3] },
          mode: { const: "fast" },
          mixed: { enum: ["a", 1, null, true, 2.5] },
          object: { const: { k: [1] } },
        },
        required: ["color"],
      },
    },
    {
      name: "unions",
      inputSchema: {
        type: "object",
        properties: {
          value: { anyOf: [{ type: "string" }, { type: "number" }] },
          shape: {
            oneOf: [
              { type: "object", properties: { kind: { const: "circle" }, r: { type: "number" } }, required: ["kind", "r"], additionalProperties: false },
              { type: "object", properties: { kind: { const: "square" }, side: { type: "number" } }, required: ["kind", "side"], additionalProperties: false },
            ],
          },
          nullableOld: { type: "string", nullable: true },
          nullableNew: { type: ["string", "null"] },
          refined: { type: "string", anyOf: [{ format: "date" }, { format: "date-time" }] },
          both: {
            allOf: [
              { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
              { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
            ],
          },
          typeList: { type: ["string", "integer", "array"], items: { type: "boolean" } },
        },
      },
    },
    {
      name: "refs",
      inputSchema: {
        type: "object",
        $defs: {
          Node: {
            type: "object",
            description: "A tree node.",
            properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
            required: ["name"],
          },
          Alias: { $ref: "#/$defs/Node" },
          Loop: { $ref: "#/$defs/Loop" },
          Json: {
            anyOf: [{ type: "string" }, { type: "number" }, { type: "array", items: { $ref: "#/$defs/Json" } }, { type: "object", additionalProperties: { $ref: "#/$defs/Json" } }],
          },
          "weird name/x": { type: "string", enum: ["w"] },
        },
        definitions: { Legacy: { type: "integer" } },
        properties: {
          tree: { $ref: "#/$defs/Node" },
          alias: { $ref: "#/$defs/Alias" },
          loop: { $ref: "#/$defs/Loop" },
          json: { $ref: "#/$defs/Json" },
          self: { $ref: "#" },
          pointer: { $ref: "#/properties/tree" },
          escaped: { $ref: "#/$defs/weird%20name~1x" },
          legacy: { $ref: "#/definitions/Legacy" },
          missing: { $ref: "#/$defs/Nope" },
          remote: { $ref: "https://example.com/schema.json" },
        },
      },
    },
    {
      name: "outputs",
      description: "Has an outputSchema.",
      inputSchema: { type: "object", properties: { limit: { type: "integer" } } },
      outputSchema: {
        type: "object",
        properties: {
          total: { type: "integer" },
          items: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
        },
        required: ["total", "items"],
      },
      annotations: { readOnlyHint: true },
    },
    { name: "delete", description: "A reserved word.", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, annotations: { destructiveHint: true } },
    { name: "get-item", inputSchema: { type: "object" } },
    { name: "get_item", inputSchema: { type: "object" } },
    { name: "booleans", inputSchema: { type: "object", properties: { anything: true, nothing: false } } },
    { name: "rootRef", inputSchema: { $ref: "#/$defs/Params", $defs: { Params: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } } } },
  ],
};
