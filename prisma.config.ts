// Prisma CLI configuration. Prisma runs here on its JavaScript schema engine with a driver
// adapter, so no engine binary is downloaded. The provider follows DATABASE_URL: a
// postgres(ql):// URL selects prisma/postgresql, anything else the embedded SQLite file.
import { defineConfig } from "prisma/config";
import { databaseTarget } from "./server/db/target";

const target = databaseTarget(process.env);

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: `prisma/${target.provider}/schema.prisma`,
  async adapter() {
    if (target.provider === "postgresql") {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      return new PrismaPg({ connectionString: target.url });
    }
    const { PrismaBetterSQLite3 } = await import("@prisma/adapter-better-sqlite3");
    return new PrismaBetterSQLite3({ url: target.url });
  },
});
