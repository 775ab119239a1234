// Varal's Lua scripts on a Redis client: each defined once per client and called by SHA
// (ioredis sends EVALSHA and loads the script on NOSCRIPT). Each script has a Buffer
// variant for binary-safe payloads.
import type Redis from "ioredis";
import { luaScripts, type LuaScriptName } from "./scripts.generated";

const defined = new WeakSet<Redis>();

/** Defines the scripts on a client; pipelines made after this can call them too. */
export function defineScripts(client: Redis): void {
  if (defined.has(client)) return;
  for (const [name, script] of Object.entries(luaScripts)) {
    client.defineCommand(`varal_${name}`, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  defined.add(client);
}

type ScriptCommand = (...values: Array<string | number | Buffer>) => Promise<unknown>;

/** Runs a script; `buffers` returns bulk strings as Buffers (payloads may be binary). */
export async function evalScript<T = unknown>(
  client: Redis,
  name: LuaScriptName,
  keys: string[],
  args: Array<string | number | Buffer>,
  options: { buffers?: boolean } = {},
): Promise<T> {
  const script = luaScripts[name];
  if (keys.length !== script.numberOfKeys) {
    throw new Error(`script ${name} takes ${script.numberOfKeys} key(s), was given ${keys.length}`);
  }
  defineScripts(client);
  const command = (client as unknown as Record<string, ScriptCommand>)[`varal_${name}${options.buffers ? "Buffer" : ""}`];
  return (await command.call(client, ...keys, ...args)) as T;
}

/** Adds a script call to a pipeline made after defineScripts() on its client. */
export function pipelineScript(pipeline: ReturnType<Redis["pipeline"]>, name: LuaScriptName, keys: string[], args: Array<string | number>): void {
  (pipeline as unknown as Record<string, (...values: Array<string | number>) => void>)[`varal_${name}`](...keys, ...args);
}
