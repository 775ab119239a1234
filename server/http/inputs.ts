// Input schemas shared by several routes.
import { z } from "zod";

export const username = z.string().trim().regex(/^[a-zA-Z0-9._@-]{2,64}$/, "2 to 64 letters, digits, '.', '_', '@' or '-'");
export const password = z.string().min(10, "at least 10 characters").max(200);
export const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);
export const cursor = z.string().max(200).optional();
