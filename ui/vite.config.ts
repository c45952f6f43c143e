// Builds the single-page app into the Python package (../rest/ui_bundle), served under /ui/.
// The dev server proxies the engine, so `npm run dev` works against `flowledger serve`.
import { defineConfig } from "vitest/config";

const engine = process.env.FLOWLEDGER_URL ?? "http://127.0.0.1:8080";

export default defineConfig(({ command }) => ({
  // the dev server answers the app's routes (/cockpit/...) itself, so it serves from the root
  base: command === "build" ? "/ui/" : "/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "../rest/ui_bundle",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      output: {
        entryFileNames: "assets/app-[hash].js",
        chunkFileNames: "assets/[name]-[hash].js",
        assetFileNames: "assets/[name]-[hash][extname]",
      },
    },
  },
  server: {
    proxy: {
      "/engine-rest": engine,
      "/flowledger": engine,
    },
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
}));
