"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { api } from "../../lib/api";
import { keys, useSetupNeeded } from "../../lib/queries";

export default function SetupPage() {
  const router = useRouter();
  const client = useQueryClient();
  const setup = useSetupNeeded();
  const [username, setUsername] = useState("admin");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const create = useMutation({
    mutationFn: () => api("/api/setup", { method: "POST", body: { username, password } }),
    onSuccess: async () => {
      await client.resetQueries({ queryKey: keys.me });
      router.replace("/");
    },
  });
  useEffect(() => {
    // Someone else finished setup first: sign in instead (not after our own success).
    if (setup.data && !setup.data.setupNeeded && !create.isSuccess) router.replace("/login");
  }, [setup.data, create.isSuccess, router]);

  const mismatch = repeat !== "" && repeat !== password;
  return (
    <div className="auth panel">
      <h1>Set up Varal</h1>
      <p className="muted small">Create the first administrator. This page closes once a user exists.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!mismatch) create.mutate();
        }}
      >
        <label>
          Username
          <input name="username" autoComplete="username" value={username} onChange={(event) => setUsername(event.target.value)} required />
        </label>
        <label>
          Password (10 characters or more)
          <input name="password" type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} required minLength={10} />
        </label>
        <label>
          Repeat the password
          <input name="repeat" type="password" autoComplete="new-password" value={repeat} onChange={(event) => setRepeat(event.target.value)} required />
        </label>
        {mismatch && <div className="error">The two passwords differ.</div>}
        <button className="primary" type="submit" disabled={create.isPending || mismatch}>
          Create administrator
        </button>
        {create.error && <div className="error" role="alert" data-testid="error">{create.error.message}</div>}
      </form>
    </div>
  );
}
