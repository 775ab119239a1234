// Judges a queue's status from one observation and how it moved over the last polls.
import type { QueueObservation, QueueStatus } from "../brokers/types";

/** Consecutive polls with work waiting, consumers attached and nothing taken, before "stalled". */
export const STALL_POLLS = 3;

export interface StatusInput {
  observation: QueueObservation;
  rateOut: number | null;
  dlqDepth: number | null;
  /** How many polls in a row nothing left a non-empty queue that has consumers. */
  idlePolls: number;
  lagWarningSeconds: number;
  /** True when another queue dead-letters into this one: a parking lot, not a worker queue. */
  isDeadLetterQueue: boolean;
}

export function judgeStatus(input: StatusInput): { status: QueueStatus; reason: string | null } {
  const { observation: queue } = input;
  if (queue.status) return queue.status;
  const waiting = (queue.depth ?? 0) > 0;
  if (input.isDeadLetterQueue) {
    // Nobody is meant to consume a DLQ: what matters is that dead letters wait in it.
    return waiting ? { status: "warning", reason: `${queue.depth} dead letter(s) wait for a redrive or a purge` } : { status: "ok", reason: null };
  }
  if (waiting && queue.consumers === 0) {
    return { status: "stopped", reason: `no consumer while ${queue.depth} message(s) wait` };
  }
  if (waiting && (queue.consumers ?? 0) > 0 && input.idlePolls >= STALL_POLLS) {
    return { status: "stalled", reason: `consumers attached but nothing consumed for ${input.idlePolls} polls` };
  }
  if (queue.lagSeconds !== null && queue.lagSeconds > input.lagWarningSeconds) {
    return { status: "warning", reason: `oldest message is ${Math.round(queue.lagSeconds)} s old (over ${input.lagWarningSeconds} s)` };
  }
  if ((input.dlqDepth ?? 0) > 0) {
    return { status: "warning", reason: `${input.dlqDepth} message(s) in its dead-letter queue` };
  }
  return { status: "ok", reason: null };
}

/** The next idle-poll count: grows while a waiting queue with consumers moves nothing. */
export function nextIdlePolls(previous: number, queue: QueueObservation, rateOut: number | null): number {
  const waiting = (queue.depth ?? 0) > 0 && (queue.consumers ?? 0) > 0;
  return waiting && rateOut === 0 ? previous + 1 : 0;
}
