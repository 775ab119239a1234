// Once per test run: a scratch folder for the SQLite files and logs of this run, and a
// fresh PostgreSQL database for the store tests that run on both providers.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export const POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

export default async function setup({ provide }: { provide: (key: string, value: string) => void }) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "varal-test-"));
  provide("scratch", scratch);
  const database = `varal_test_${process.pid}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const postgresUrl = `postgresql://postgres@127.0.0.1:5432/${database}`;
  execFileSync("npx", ["tsx", "scripts/db.ts", "migrate"], { env: { ...process.env, DATABASE_URL: postgresUrl }, stdio: "pipe" });
  provide("postgresUrl", postgresUrl);
  return async () => {
    const cleanup = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await cleanup.end();
    fs.rmSync(scratch, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    scratch: string;
    postgresUrl: string;
  }
}
