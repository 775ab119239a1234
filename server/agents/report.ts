// The report varal-agent POSTs every interval (RING.md), checked before anything is kept.
// Reports come from hosts, not from people: every field is bounded.
import { z } from "zod";

const text = (max: number) => z.string().max(max);
const count = z.number().int().min(0);
const seconds = z.number().min(0).nullable();

const role = z.object({
  pid: count,
  state: z.enum(["alive", "stalled", "dead", "unknown", "none"]),
  heartbeatAgeSeconds: seconds,
});

export const ringSchema = z.object({
  segment: text(255),
  inode: count,
  sizeBytes: count,
  uid: count.optional(),
  name: text(64),
  capacity: count,
  occupancy: count,
  occupancyRatio: z.number().min(0).max(1),
  published: count,
  consumed: count,
  fullEvents: count,
  publishRate: seconds.optional(),
  consumeRate: seconds.optional(),
  oldestAgeSeconds: seconds,
  latency: z.object({ lastNs: count, maxNs: count, p50Ns: count, p99Ns: count }),
  producer: role,
  consumer: role,
  corrupt: z.boolean(),
  /** Why a ring that looks abandoned is kept (a process holds it without the ring's locks). */
  keptBecause: text(256).optional(),
});

export const reportSchema = z.object({
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9._-]+$/, "a host name: letters, digits, dots, dashes, underscores"),
  agentVersion: text(32),
  bootId: text(64),
  sentAt: count,
  intervalSeconds: z.number().min(0.1).max(3600),
  scanMs: z.number().min(0).optional(),
  error: text(512).optional(),
  rings: z.array(ringSchema).max(20_000),
  foreign: z
    .array(
      z.object({
        segment: text(255),
        inode: count,
        sizeBytes: count,
        uid: count,
        ageSeconds: z.number().min(0),
        reason: text(256),
        mappedBy: z.array(count).max(64),
      }),
    )
    .max(20_000),
  orphans: z.array(z.object({ segment: text(255), inode: count, sizeBytes: count.optional(), reason: text(256), sinceSeconds: z.number().min(0) })).max(20_000),
  commandResults: z.array(z.object({ id: text(64), outcome: z.enum(["removed", "refused", "aborted", "quarantined"]), message: text(256) })).max(1000),
  kernel: z.record(z.string().max(64), z.union([z.number(), z.string().max(64), z.null()])).optional(),
});

export type AgentReport = z.infer<typeof reportSchema>;
export type RingReport = z.infer<typeof ringSchema>;
