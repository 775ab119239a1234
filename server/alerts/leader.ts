// One Varal evaluates alerts at a time. On PostgreSQL the leader holds a session-level
// advisory lock on a connection of its own; when that replica stops, its connection and
// lock go, and another takes over on its next try. The embedded SQLite store serves one
// process, which is always the leader.
import pg from "pg";
import { databaseTarget } from "../db/target";

/** The advisory lock key: "varal-al" as a number, so it will not meet other applications' keys. */
const LOCK_KEY = 0x766172616c2d61n;

export class Leadership {
  private client: pg.Client | null = null;
  private leader = false;

  /** True when this process may evaluate now. Cheap when already leader. */
  async check(): Promise<boolean> {
    const target = databaseTarget(process.env);
    if (target.provider === "sqlite") {
      this.leader = true;
      return true;
    }
    if (this.leader && this.client) return true;
    try {
      this.client ??= await this.connect(target.url);
      const result = await this.client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [LOCK_KEY.toString()]);
      this.leader = result.rows[0]?.locked === true;
    } catch {
      await this.release();
    }
    return this.leader;
  }

  private async connect(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url, application_name: "varal alerts leader" });
    // A dropped connection is a lost lock: stop leading at once.
    client.on("error", () => void this.release());
    client.on("end", () => {
      this.leader = false;
      this.client = null;
    });
    await client.connect();
    return client;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  async release(): Promise<void> {
    const client = this.client;
    this.leader = false;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
