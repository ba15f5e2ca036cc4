/**
 * ListTasks paging. A page token is base64url("SPLIT@OFFSET") for the split it
 * was issued for; anything else (other split, non-canonical, out of range) is
 * INVALID_ARGUMENT.
 */
import { invalid } from "./errors";

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export function page<T>(items: readonly T[], split: string, token: string, pageSize: number):
    { items: T[]; next: string } {
  const offset = token ? offsetOf(token, split, items.length) : 0;
  const size = Math.min(pageSize || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const end = offset + size;
  return { items: items.slice(offset, end), next: end < items.length ? tokenFor(split, end) : "" };
}

function tokenFor(split: string, offset: number): string {
  return Buffer.from(`${split}@${offset}`, "utf8").toString("base64url");
}

function offsetOf(token: string, split: string, total: number): number {
  const text = Buffer.from(token, "base64url").toString("utf8");
  const match = /^([a-z0-9_-]+)@([1-9]\d{0,8})$/.exec(text);
  if (!match || tokenFor(match[1], Number(match[2])) !== token || match[1] !== split ||
      Number(match[2]) >= total) {
    throw invalid(`page_token ${JSON.stringify(token.slice(0, 80))} is not one this server ` +
      `issued for split ${JSON.stringify(split)}; pass next_page_token unchanged, or "" for the first page`);
  }
  return Number(match[2]);
}
