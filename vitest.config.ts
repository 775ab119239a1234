// Three suites: unit (pure, parallel), integration (real services) and e2e (a real
// Chromium against a built server). The last two run one file at a time: they share
// brokers and this machine has two cores.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "@": fileURLToPath(new URL(".", import.meta.url)).replace(/\/$/, "") };

export default defineConfig({
  resolve: { alias },
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    projects: [
      { resolve: { alias }, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], fileParallelism: false, testTimeout: 90_000, hookTimeout: 180_000 },
      },
    ],
  },
});
