// Varal's Lua scripts on a Redis client: each defined once per client and called by SHA
// (ioredis sends EVALSHA and loads the script on NOSCRIPT). Return codes below zero are
// errors, mapped here to messages that say what to do.
import type Redis from "ioredis";
import { VaralError } from "../../errors";
import { luaScripts, type LuaScriptName } from "./scripts.generated";

const defined = new WeakSet<Redis>();

function defineAll(client: Redis): void {
  if (defined.has(client)) return;
  for (const [name, script] of Object.entries(luaScripts)) {
    client.defineCommand(`varal_${name}`, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  defined.add(client);
}

export const SCRIPT_ERRORS: Record<number, string> = {
  [-1]: "a key holds a value of the wrong type (not a list)",
};

export async function runScript(client: Redis, name: LuaScriptName, keys: string[], args: Array<string | number>): Promise<number> {
  const script = luaScripts[name];
  if (keys.length !== script.numberOfKeys) {
    throw new Error(`script ${name} takes ${script.numberOfKeys} key(s), was given ${keys.length}`);
  }
  defineAll(client);
  const command = (client as unknown as Record<string, (...values: Array<string | number>) => Promise<number>>)[`varal_${name}`];
  const result = await command.call(client, ...keys, ...args);
  if (result < 0) {
    throw new VaralError("conflict", `${name} on ${keys.join(", ")}: ${SCRIPT_ERRORS[result] ?? `error code ${result}`}.`);
  }
  return result;
}
