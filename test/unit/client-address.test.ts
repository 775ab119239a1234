// Which address a request comes from: what the connection says, unless a trusted proxy says.
import { describe, expect, it } from "vitest";
import { PEER_HEADER, clientAddress } from "@/server/auth/authenticate";

const request = (headers: Record<string, string>) => new Request("http://varal.test/api/auth/login", { headers });

describe("client address", () => {
  it("ignores X-Forwarded-For unless told a proxy sets it, so a client cannot pick its own", () => {
    const spoofed = request({ [PEER_HEADER]: "198.51.100.7", "x-forwarded-for": "203.0.113.1" });
    expect(clientAddress(spoofed, {})).toBe("198.51.100.7");
    expect(clientAddress(spoofed, { VARAL_TRUST_PROXY: "1" })).toBe("203.0.113.1");
    expect(clientAddress(request({ "x-forwarded-for": "203.0.113.1, 10.0.0.1" }), { VARAL_TRUST_PROXY: "1" })).toBe("203.0.113.1");
    expect(clientAddress(request({}), {})).toBe("local");
  });
});
