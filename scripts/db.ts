// Database chores for npm scripts:
//   generate  derive prisma/postgresql/schema.prisma from the SQLite schema, then generate both clients
//   migrate   apply the migrations of the provider that DATABASE_URL selects
//   diff      write a new migration for both providers: tsx scripts/db.ts diff <name>
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SQLITE_URL, databaseTarget, sqliteFilePath, type DatabaseProvider } from "../server/db/target";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const prismaBin = path.join(root, "node_modules", ".bin", "prisma");
const providers: DatabaseProvider[] = ["sqlite", "postgresql"];

function schemaPath(provider: DatabaseProvider): string {
  return path.join(root, "prisma", provider, "schema.prisma");
}

/** The PostgreSQL schema is the SQLite one with its provider and output changed. */
export function derivePostgresSchema(sqliteSchema: string): string {
  return sqliteSchema
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace("server/db/generated/sqlite", "server/db/generated/postgresql")
    .replace(
      /^\/\/ Varal's store\.[^\n]*\n(\/\/[^\n]*\n)*/,
      "// Derived from prisma/sqlite/schema.prisma by `npm run db:generate`: edit that file, not this one.\n",
    );
}

// The schema reads env("DATABASE_URL"): without it the CLI cannot parse the schema, takes the
// engine type to be the Rust one and tries to download it, so every call passes it.
function prisma(args: string[], env: Record<string, string>): void {
  execFileSync(prismaBin, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
}

/** DATABASE_URL for running the CLI on one provider (the config picks the schema from it). */
function envFor(provider: DatabaseProvider): Record<string, string> {
  const current = databaseTarget(process.env);
  if (current.provider === provider) return { DATABASE_URL: current.url };
  // `migrate diff` connects even from an empty state: the machine's own PostgreSQL serves.
  return { DATABASE_URL: provider === "postgresql" ? "postgresql://postgres@127.0.0.1:5432/postgres" : DEFAULT_SQLITE_URL };
}

function generate(): void {
  fs.writeFileSync(schemaPath("postgresql"), derivePostgresSchema(fs.readFileSync(schemaPath("sqlite"), "utf8")));
  for (const provider of providers) prisma(["generate"], envFor(provider));
}

function ensureSqliteFolder(): void {
  const target = databaseTarget(process.env);
  if (target.provider === "sqlite") fs.mkdirSync(path.dirname(sqliteFilePath(target.url)), { recursive: true });
}

function migrate(): void {
  ensureSqliteFolder();
  prisma(["migrate", "deploy"], { DATABASE_URL: databaseTarget(process.env).url });
}

/**
 * Each migration folder keeps the schema it brings the database to (schema.prisma), so the
 * next migration is the difference between that snapshot and the current schema: no
 * shadow database needed (the JS schema engine cannot make one for SQLite).
 */
function diff(name: string): void {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error("migration name: lowercase letters, digits and _ only");
  ensureSqliteFolder();
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  for (const provider of providers) {
    const folder = path.join(root, "prisma", provider, "migrations");
    const applied = fs.existsSync(folder)
      ? fs.readdirSync(folder).filter((entry) => fs.statSync(path.join(folder, entry)).isDirectory()).sort()
      : [];
    const lastSnapshot = applied.length > 0 ? path.join(folder, applied[applied.length - 1], "schema.prisma") : null;
    if (lastSnapshot && !fs.existsSync(lastSnapshot)) throw new Error(`${lastSnapshot} is missing: it records the schema that migration leads to`);
    const from = lastSnapshot ? ["--from-schema-datamodel", lastSnapshot] : ["--from-empty"];
    const out = execFileSync(
      prismaBin,
      ["migrate", "diff", ...from, "--to-schema-datamodel", schemaPath(provider), "--script"],
      { cwd: root, env: { ...process.env, ...envFor(provider) }, encoding: "utf8" },
    );
    const dir = path.join(folder, `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), out);
    fs.copyFileSync(schemaPath(provider), path.join(dir, "schema.prisma"));
    const lock = path.join(folder, "migration_lock.toml");
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, `provider = "${provider}"\n`);
    console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, arg] = process.argv.slice(2);
  if (command === "generate") generate();
  else if (command === "migrate") migrate();
  else if (command === "diff" && arg) diff(arg);
  else {
    console.error("usage: tsx scripts/db.ts generate | migrate | diff <name>");
    process.exit(2);
  }
}
