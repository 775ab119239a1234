// Points the process's store at a fresh, migrated SQLite file (or a given PostgreSQL URL).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { inject } from "vitest";
import { disconnectDb } from "@/server/db/client";

let counter = 0;

export async function useFreshSqlite(): Promise<string> {
  const file = path.join(inject("scratch"), `store-${process.pid}-${Date.now()}-${counter++}.db`);
  const url = `file:${file}`;
  migrate(url);
  await useDatabase(url);
  return url;
}

export async function useDatabase(url: string): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = url;
}

export function migrate(url: string): void {
  execFileSync("npx", ["tsx", "scripts/db.ts", "migrate"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
}
