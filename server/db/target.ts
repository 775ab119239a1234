// Which database Varal stores into, read from DATABASE_URL. Shared by the Prisma CLI
// configuration and the runtime client so both always agree.
import path from "node:path";

export type DatabaseProvider = "sqlite" | "postgresql";

export interface DatabaseTarget {
  provider: DatabaseProvider;
  url: string;
}

export const DEFAULT_SQLITE_URL = "file:./data/varal.db";

export function databaseTarget(env: Record<string, string | undefined>): DatabaseTarget {
  const url = env.DATABASE_URL?.trim() || DEFAULT_SQLITE_URL;
  if (/^postgres(ql)?:\/\//i.test(url)) return { provider: "postgresql", url };
  if (!url.startsWith("file:")) {
    throw new Error(
      `DATABASE_URL must be a postgresql:// URL or a file: path for SQLite, got "${url.split(":")[0]}:..."`,
    );
  }
  return { provider: "sqlite", url };
}

/** The SQLite file's path, resolved against the working directory, for creating its folder. */
export function sqliteFilePath(url: string): string {
  return path.resolve(url.slice("file:".length));
}
