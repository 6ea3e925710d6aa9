// Imported first by the worker's entry, so these exist before pdfjs and exceljs load.

// pdfjs's display layer makes a DOMMatrix (and may touch Path2D, ImageData) when it loads; text
// extraction never draws, so inert stand-ins do (without them it looks for @napi-rs/canvas).
class InertDOMMatrix {
  a = 1;
  b = 0;
  c = 0;
  d = 1;
  e = 0;
  f = 0;
}
const globals = globalThis as Record<string, unknown>;
globals.DOMMatrix ??= InertDOMMatrix;
globals.Path2D ??= class Path2D {};
globals.ImageData ??= class ImageData {};

// Under Deno, process.umask() needs a permission the sandbox does not grant; exceljs's
// dependencies call it when they load.
try {
  process.umask();
} catch {
  process.umask = () => 0o022;
}

// Deno's Object.prototype.__proto__ setter (without --unstable-unsafe-proto) makes an own property
// instead of setting the prototype; mammoth sets its promises' prototypes through it.
if (Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")?.configurable !== false) {
  Object.defineProperty(Object.prototype, "__proto__", {
    configurable: true,
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, prototype: object | null) {
      if (typeof prototype === "object" || typeof prototype === "function") Object.setPrototypeOf(this, prototype);
    },
  });
}

// Temporary files (exceljs keeps a sheet that comes before the shared strings in one) go to the
// run's own empty folder, the one place the worker may write.
process.env.TMPDIR = process.cwd();

export {};
