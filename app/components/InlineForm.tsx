"use client";
// A one-line form that submits without reloading the page, and the error a mutation gave.
import type { ReactNode } from "react";

export function InlineForm({ onSubmit, children }: { onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      className="row"
      style={{ marginTop: 10 }}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

export function ErrorLine({ error }: { error: Error | null | undefined }) {
  if (!error) return null;
  return (
    <div className="error" role="alert" data-testid="error">
      {error.message}
    </div>
  );
}
