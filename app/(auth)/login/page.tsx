"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { api } from "../../lib/api";
import { keys, useSetupNeeded } from "../../lib/queries";

export default function LoginPage() {
  const router = useRouter();
  const client = useQueryClient();
  const setup = useSetupNeeded();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: () => api("/api/auth/login", { method: "POST", body: { username, password } }),
    onSuccess: async () => {
      await client.resetQueries({ queryKey: keys.me });
      router.replace("/");
    },
  });
  useEffect(() => {
    if (setup.data?.setupNeeded) router.replace("/setup");
  }, [setup.data, router]);

  return (
    <div className="auth panel">
      <h1>Sign in to Varal</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          login.mutate();
        }}
      >
        <label>
          Username
          <input name="username" autoComplete="username" value={username} onChange={(event) => setUsername(event.target.value)} required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} required />
        </label>
        <button className="primary" type="submit" disabled={login.isPending}>
          Sign in
        </button>
        {login.error && <div className="error" role="alert" data-testid="error">{login.error.message}</div>}
      </form>
    </div>
  );
}
