// Principals for calling server functions directly, as a route would after authentication.
import type { Principal, Role } from "@/server/auth/permissions";

export function principal(role: Role, name = `${role}-user`): Principal {
  return { kind: "user", id: name, name, role, userId: name, viaCookie: false };
}
