"use client";
// Admin: users (their roles, their removal) and API tokens. A new token is shown once.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/api";
import { formatAgo } from "../../lib/format";
import { keys } from "../../lib/queries";
import { ErrorLine, InlineForm } from "../../components/InlineForm";
import { ROLES } from "@/server/auth/permissions";

interface User {
  id: string;
  username: string;
  role: string;
  createdAt: string;
}
interface Token {
  id: string;
  name: string;
  kind: string;
  username: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export default function SettingsPage() {
  const client = useQueryClient();
  const users = useQuery({ queryKey: keys.users, queryFn: () => api<User[]>("/api/users") });
  const tokens = useQuery({ queryKey: keys.tokens, queryFn: () => api<Token[]>("/api/tokens") });
  const [user, setUser] = useState({ username: "", password: "", role: "viewer" });
  const [tokenForm, setTokenForm] = useState({ name: "", kind: "user" });
  const [newToken, setNewToken] = useState<string | null>(null);
  // Removing a user signs them out and drops their tokens: asked twice.
  const [removing, setRemoving] = useState<string | null>(null);

  const createUser = useMutation({
    mutationFn: () => api("/api/users", { method: "POST", body: user }),
    onSuccess: () => {
      setUser({ username: "", password: "", role: "viewer" });
      client.invalidateQueries({ queryKey: keys.users });
    },
  });
  const createToken = useMutation({
    mutationFn: () => api<Token & { token: string }>("/api/tokens", { method: "POST", body: tokenForm }),
    onSuccess: (created) => {
      setNewToken(created.token);
      setTokenForm({ name: "", kind: "user" });
      client.invalidateQueries({ queryKey: keys.tokens });
    },
  });
  const setRole = useMutation({
    mutationFn: ({ id, role }: { id: string; role: string }) => api(`/api/users/${id}`, { method: "PATCH", body: { role } }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.users }),
  });
  const removeUser = useMutation({
    mutationFn: (id: string) => api(`/api/users/${id}`, { method: "DELETE" }),
    // Their tokens go with them.
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: keys.users }), client.invalidateQueries({ queryKey: keys.tokens })]),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/api/tokens/${id}`, { method: "DELETE" }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.tokens }),
  });

  return (
    <>
      <h1>Users &amp; tokens</h1>
      <section className="panel">
        <h2>Users</h2>
        <ErrorLine error={users.error} />
        <table>
          <thead>
            <tr>
              <th>Username</th>
              <th>Role</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {users.data?.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.username}</td>
                <td>
                  <select aria-label={`Role of ${entry.username}`} value={entry.role} onChange={(event) => setRole.mutate({ id: entry.id, role: event.target.value })}>
                    {ROLES.map((role) => (
                      <option key={role}>{role}</option>
                    ))}
                  </select>
                </td>
                <td className="small">{formatAgo(entry.createdAt)}</td>
                <td>
                  {removing === entry.id ? (
                    <span className="row">
                      <button className="danger" onClick={() => removeUser.mutate(entry.id, { onSettled: () => setRemoving(null) })}>
                        Remove {entry.username} and their tokens
                      </button>
                      <button onClick={() => setRemoving(null)}>Keep</button>
                    </span>
                  ) : (
                    <button onClick={() => setRemoving(entry.id)}>Remove</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ErrorLine error={setRole.error ?? removeUser.error} />
        <InlineForm onSubmit={() => createUser.mutate()}>
          <input placeholder="username" aria-label="New username" value={user.username} onChange={(event) => setUser({ ...user, username: event.target.value })} />
          <input placeholder="password (10+)" aria-label="New password" type="password" value={user.password} onChange={(event) => setUser({ ...user, password: event.target.value })} />
          <select aria-label="New role" value={user.role} onChange={(event) => setUser({ ...user, role: event.target.value })}>
            {ROLES.map((role) => (
              <option key={role}>{role}</option>
            ))}
          </select>
          <button type="submit" className="primary" disabled={createUser.isPending}>
            Add user
          </button>
        </InlineForm>
        <ErrorLine error={createUser.error} />
      </section>
      <section className="panel">
        <h2>API tokens</h2>
        {newToken && (
          <div className="note">
            Copy this token now; it is not shown again: <code data-testid="new-token">{newToken}</code>
          </div>
        )}
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>User</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.data?.map((token) => (
              <tr key={token.id}>
                <td>{token.name}</td>
                <td>{token.kind}</td>
                <td>{token.username ?? "—"}</td>
                <td className="small">{formatAgo(token.lastUsedAt)}</td>
                <td>
                  <button onClick={() => revoke.mutate(token.id)}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <InlineForm onSubmit={() => createToken.mutate()}>
          <input placeholder="token name" aria-label="Token name" value={tokenForm.name} onChange={(event) => setTokenForm({ ...tokenForm, name: event.target.value })} />
          <select aria-label="Token kind" value={tokenForm.kind} onChange={(event) => setTokenForm({ ...tokenForm, kind: event.target.value })}>
            <option value="user">user (acts as you)</option>
            <option value="agent">agent (reports only)</option>
          </select>
          <button type="submit" className="primary" disabled={createToken.isPending}>
            Create token
          </button>
        </InlineForm>
        <ErrorLine error={createToken.error} />
      </section>
    </>
  );
}
