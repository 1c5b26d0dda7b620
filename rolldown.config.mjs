// Bundles the compiled CLI (dist/cli/main.js) and its dependencies into dist/bin/: hel starts
// faster from one file than from ~300 modules (measured: ~100 ms less before the first request).
// The modules `hel sessions` and a run load on demand stay separate chunks, so `hel --version`
// loads neither.
import { defineConfig } from "rolldown";

export default defineConfig({
  input: { hel: "dist/cli/main.js" },
  platform: "node",
  output: {
    dir: "dist/bin",
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    minify: false,
    cleanDir: true,
  },
});
