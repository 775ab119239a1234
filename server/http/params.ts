// Path parameters: a queue's name arrives URL-encoded in one segment (names hold "/").
import { VaralError } from "../errors";

type Params = Record<string, string | string[] | undefined>;

export function queueIdFromParams(params: Params): string {
  const broker = params.broker;
  const name = params.name;
  if (typeof broker !== "string" || typeof name !== "string") {
    throw new VaralError("invalid_input", "Queue paths are /api/queues/<broker>/<URL-encoded name>.");
  }
  return `${safeDecode(broker)}/${safeDecode(name)}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new VaralError("invalid_input", `"${segment}" is not validly URL-encoded.`);
  }
}

export function hostFromParams(params: Params): string {
  if (typeof params.host !== "string") throw new VaralError("invalid_input", "Host paths are /api/hosts/<host>.");
  return safeDecode(params.host);
}
