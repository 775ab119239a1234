// Figures for benchmarks: percentiles, and the JSON file each benchmark writes.
import fs from "node:fs";
import path from "node:path";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export function writeResults(name: string, results: unknown): string {
  const dir = path.resolve("bench-results");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ benchmark: name, at: new Date().toISOString(), results }, null, 2)}\n`);
  return file;
}

export function printTable(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const headers = Object.keys(rows[0]);
  const widths = headers.map((header) => Math.max(header.length, ...rows.map((row) => String(row[header]).length)));
  const line = (cells: string[]) => cells.map((cell, index) => cell.padStart(widths[index])).join("  ");
  console.log(line(headers));
  for (const row of rows) console.log(line(headers.map((header) => String(row[header]))));
}
