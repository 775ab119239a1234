"use client";
// Every console page: the navigation, and a guard that sends the signed-out to sign in.
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import { api, ApiError } from "../lib/api";
import { useMe } from "../lib/queries";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/queues", label: "Queues" },
  { href: "/hosts", label: "Hosts" },
  { href: "/actions", label: "Actions" },
  { href: "/alerts", label: "Alerts" },
  { href: "/audit", label: "Audit log" },
  { href: "/settings", label: "Users & tokens" },
];

function ThemeToggle() {
  const [theme, setTheme] = useState<string | null>(null);
  useEffect(() => {
    const saved = localStorage.getItem("varal-theme");
    if (saved) document.documentElement.dataset.theme = saved;
    setTheme(saved);
  }, []);
  const next = theme === "dark" ? "light" : theme === "light" ? null : "dark";
  return (
    <button
      className="small"
      onClick={() => {
        if (next) {
          localStorage.setItem("varal-theme", next);
          document.documentElement.dataset.theme = next;
        } else {
          localStorage.removeItem("varal-theme");
          delete document.documentElement.dataset.theme;
        }
        setTheme(next);
      }}
    >
      Theme: {theme ?? "system"}
    </button>
  );
}

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  const me = useMe();
  const router = useRouter();
  const pathname = usePathname();
  const client = useQueryClient();

  useEffect(() => {
    if (me.error instanceof ApiError && me.error.status === 401) router.replace("/login");
  }, [me.error, router]);

  if (!me.data) return <main className="muted">{me.error ? "Redirecting to sign in…" : "Loading…"}</main>;

  const logout = async () => {
    await api("/api/auth/logout", { method: "POST" });
    client.clear();
    router.replace("/login");
  };

  return (
    <div className="shell">
      <nav className="nav" aria-label="Main">
        <div className="brand">Varal</div>
        {LINKS.filter((link) => link.href !== "/settings" || me.data.role === "admin").map((link) => {
          const active = link.href === "/" ? pathname === "/" : pathname.startsWith(link.href);
          return (
            <Link key={link.href} href={link.href} aria-current={active ? "page" : undefined}>
              {link.label}
            </Link>
          );
        })}
        <div className="spacer" />
        <ThemeToggle />
        <div className="who" data-testid="who">
          {me.data.name} · {me.data.role}
        </div>
        <button onClick={logout} data-testid="logout">
          Sign out
        </button>
      </nav>
      <main>{children}</main>
    </div>
  );
}
