import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCodeApi } from "../generate/generate-code-api.js";
import { runProcess } from "../test-support/run-process.js";
import { trickyServer } from "../test-support/tricky-schemas.js";

// Imports every generated module and reports, per tool, its Input's keys and resolved type hints
// (typing.get_type_hints evaluates every forward reference, so a dangling name fails here).
const inspect = `
import importlib, json, sys, typing
out = {}
for name in sys.argv[1:]:
    module = importlib.import_module("servers.tricky_server_v2." + name)
    hints = typing.get_type_hints(module.Input) if typing.is_typeddict(module.Input) else {}
    out[name] = {
        "typeddict": typing.is_typeddict(module.Input),
        "required": sorted(getattr(module.Input, "__required_keys__", [])),
        "optional": sorted(getattr(module.Input, "__optional_keys__", [])),
        "hints": {key: str(value).replace("typing.", "").replace(module.__name__ + ".", "") for key, value in hints.items()},
        "doc": module.Input.__doc__,
        "function": [f for f in dir(module) if not f.startswith("_") and callable(getattr(module, f)) and getattr(getattr(module, f), "__module__", "") == module.__name__ and not isinstance(getattr(module, f), type)],
    }
package = importlib.import_module("servers.tricky_server_v2")
out["__all__"] = package.__all__
print(json.dumps(out))
`;

let temp: ReturnType<typeof makeTempDir>;
type Inspected = Record<string, { typeddict: boolean; required: string[]; optional: string[]; hints: Record<string, string>; doc: string; function: string[] }> & { __all__: string[] };
let inspected: Inspected;

beforeAll(async () => {
  temp = makeTempDir();
  await generateCodeApi({ servers: [trickyServer], outDir: temp.dir, languages: ["python"] });
  fs.writeFileSync(path.join(temp.dir, "inspect.py"), inspect);
  const modules = fs.readdirSync(path.join(temp.dir, "python", "servers", "tricky_server_v2")).filter((f) => f.endsWith(".py") && f !== "__init__.py").map((f) => f.slice(0, -3));
  const run = await runProcess("python3", [path.join(temp.dir, "inspect.py"), ...modules], { env: { PYTHONPATH: path.join(temp.dir, "python"), PATH: process.env.PATH ?? "" } });
  expect(run.stderr).toBe("");
  inspected = JSON.parse(run.stdout) as Inspected;
}, 60_000);
afterAll(() => temp.cleanup());

describe("JSON Schema → Python", () => {
  it("compiles every generated file", async () => {
    const run = await runProcess("python3", ["-m", "compileall", "-q", path.join(temp.dir, "python")]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
  });

  it("makes TypedDicts with required keys and NotRequired optional ones, functional syntax for odd keys", () => {
    const objects = inspected.objects;
    expect(objects?.typeddict).toBe(true);
    expect(objects?.required).toEqual(["class", "missing_declared", "name"]);
    expect(objects?.optional).toEqual(["0digit", "__typename", "count", "odd-key", "with space"]);
    expect(objects?.hints).toMatchObject({ name: "<class 'str'>", count: "<class 'int'>", "0digit": "<class 'float'>" });
    expect(objects?.doc).toContain('class (required): Triple """ quotes and a back\\slash. Format: email.');
    expect(objects?.doc).toContain("count: Ends with a quote \". Default: 1. Minimum: 0. Maximum: 5.");
  });

  it("types enums as Literal, unions as Union/Optional and merges allOf objects", () => {
    expect(inspected.enums?.hints).toMatchObject({
      color: "Literal['red', 'green']",
      level: "Literal[1, 2, 3]",
      mode: "Literal['fast']",
      mixed: "Union[Literal['a', 1, True], NoneType, float]",
    });
    expect(inspected.enums?.required).toEqual(["color"]);
    expect(inspected.unions?.hints).toMatchObject({
      value: "Union[str, float]",
      nullableOld: "Optional[str]",
      nullableNew: "Optional[str]",
      refined: "<class 'str'>",
      typeList: "Union[str, int, list[bool]]",
    });
    // Forward references resolve to the module's classes: no dangling names.
    expect(inspected.unions?.hints.shape).toBe("Union[InputShapeOption1, InputShapeOption2]");
    expect(inspected.unions?.hints.both).toBe("<class 'InputBoth'>");
  });

  it("resolves $refs to named TypedDicts, recursion included", () => {
    expect(inspected.refs?.hints).toMatchObject({
      tree: "<class 'Node'>",
      alias: "<class 'Node'>",
      self: "<class 'Input'>",
      escaped: "Literal['w']",
      legacy: "<class 'int'>",
      missing: "Any",
      loop: "Any",
    });
    expect(inspected.root_ref?.required).toEqual(["q"]);
  });

  it("names functions in snake_case, avoids clashes, and exports them from the package", () => {
    expect(inspected.__all__).toEqual(["objects", "additional", "arrays", "enums", "unions", "refs", "outputs", "delete", "get_item_2", "get_item", "booleans", "root_ref"]);
    expect(inspected.get_item_2?.function).toContain("get_item_2");
  });
});
