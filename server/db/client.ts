// The one Prisma client of the process, built with the driver adapter that DATABASE_URL
// selects. Kept on globalThis so that Next.js's separate server entries share it.
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client";
import { databaseTarget, sqliteFilePath, type DatabaseProvider } from "./target";

/** Both generated clients have the same API; the SQLite one's type stands for both. */
export type Db = InstanceType<typeof SqliteClient>;

interface DbHolder {
  db: Db;
  provider: DatabaseProvider;
  /** Settled once the connection's settings are applied (SQLite's pragmas). */
  ready: Promise<void>;
}

const holder = globalThis as typeof globalThis & { __varalDb?: DbHolder };

function connect(): DbHolder {
  const target = databaseTarget(process.env);
  if (target.provider === "postgresql") {
    const adapter = new PrismaPg({ connectionString: target.url, max: 10 });
    return { db: new PostgresClient({ adapter }) as unknown as Db, provider: "postgresql", ready: Promise.resolve() };
  }
  fs.mkdirSync(path.dirname(sqliteFilePath(target.url)), { recursive: true });
  const adapter = new PrismaBetterSQLite3({ url: target.url, timeout: 5_000 });
  const client = new SqliteClient({ adapter });
  // WAL lets readers go on while one writes, and synchronous=NORMAL syncs at checkpoints
  // rather than on every commit: safe against a crash of Varal, the usual setting for WAL.
  // A pragma cannot run inside a transaction: callers that may start with one await openDb().
  const ready = client
    .$queryRawUnsafe("PRAGMA journal_mode = WAL")
    .then(() => client.$executeRawUnsafe("PRAGMA synchronous = NORMAL"))
    .then(() => undefined)
    .catch((error) => console.error(`varal: could not set SQLite's journal mode: ${(error as Error).message}`));
  return { db: client, provider: "sqlite", ready };
}

/** The client, once its connection settings are applied. */
export async function openDb(): Promise<Db> {
  holder.__varalDb ??= connect();
  await holder.__varalDb.ready;
  return holder.__varalDb.db;
}

export function db(): Db {
  holder.__varalDb ??= connect();
  return holder.__varalDb.db;
}

export function storeProvider(): DatabaseProvider {
  holder.__varalDb ??= connect();
  return holder.__varalDb.provider;
}

/** Closes the client; the next db() call opens a new one (tests switch databases this way). */
export async function disconnectDb(): Promise<void> {
  const current = holder.__varalDb;
  holder.__varalDb = undefined;
  await current?.db.$disconnect();
}

/** JSON columns are strings in both providers; these keep the encoding in one place. */
export function toJsonColumn(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function fromJsonColumn<T = unknown>(text: string | null | undefined): T | null {
  if (text == null) return null;
  return JSON.parse(text) as T;
}
