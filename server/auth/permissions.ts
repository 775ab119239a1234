// Roles and what each may do. Route handlers ask can(principal, permission).

export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** read: dashboards and API reads; act: run actions; admin: users, tokens, rules; report: agents. */
export type Permission = "read" | "act" | "admin" | "report";

export interface Principal {
  kind: "user" | "token" | "admin-token" | "agent";
  /** The user's id, the token's id, or a fixed id for environment tokens. */
  id: string;
  /** Who did it, as written in the audit log. */
  name: string;
  role: Role | null;
  /** The user behind a session or a user token. */
  userId: string | null;
  /** True when authenticated by cookie: mutations then need a same-origin Origin header. */
  viaCookie: boolean;
}

const ROLE_PERMISSIONS: Record<Role, Permission[]> = {
  viewer: ["read"],
  operator: ["read", "act"],
  admin: ["read", "act", "admin"],
};

export function can(principal: Principal, permission: Permission): boolean {
  if (principal.kind === "agent") return permission === "report";
  return principal.role !== null && ROLE_PERMISSIONS[principal.role].includes(permission);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
