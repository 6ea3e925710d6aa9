// The console's build: one hashed bundle in dist/app, which the gateway serves at `/` (assets
// immutable, index.html revalidated). No inline script, so the gateway's CSP needs no 'unsafe-inline'.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  build: {
    outDir: "dist/app",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    // The modulepreload polyfill is inlined by default; modern browsers need none.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
