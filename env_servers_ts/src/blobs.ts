/**
 * Snapshot blobs: an episode's whole state, self-contained and signed.
 *
 * Layout (format version 1, the same as the Python servers'):
 *   "LATS" | version byte | HMAC-SHA256 (32 bytes) | zlib(JSON payload)
 * The MAC covers the magic, the version byte and the compressed payload. The
 * payload names the environment (name + version). Blobs are opaque to clients;
 * any replica holding the same key accepts a blob; every defect (altered,
 * truncated, foreign, other key, unknown format) is INVALID_ARGUMENT.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";
import { invalid } from "./errors";

const MAGIC = Buffer.from("LATS");
const FORMAT_VERSION = 1;
const MAC_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 1 + MAC_BYTES;
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export interface Episode<S> { state: S; steps: number; terminated: boolean }

/** The configured key, else a random per-process one (then only this process reads its blobs). */
export function snapshotKey(configured: string | undefined): Buffer {
  if (configured) return Buffer.from(configured, "utf8");
  console.error("warning: no snapshot key (--snapshot-key / LATS_SNAPSHOT_KEY): using a random " +
    "per-process key, so replicas cannot read each other's blobs");
  return randomBytes(32);
}

export class BlobCodec<S> {
  constructor(private readonly key: Buffer, private readonly env: string,
              private readonly envVersion: string,
              private readonly validState: (state: unknown) => state is S) {
    if (key.length === 0) throw new Error("the snapshot key must not be empty");
  }

  encode(episode: Episode<S>): Buffer {
    const document = { env: this.env, env_version: this.envVersion, state: episode.state,
                       steps: episode.steps, terminated: episode.terminated };
    const body = deflateSync(Buffer.from(JSON.stringify(document), "utf8"));
    const head = Buffer.concat([MAGIC, Buffer.from([FORMAT_VERSION])]);
    return Buffer.concat([head, this.mac(head, body), body]);
  }

  decode(blob: Buffer): Episode<S> {
    if (blob.length < HEADER_BYTES || !blob.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw invalid(`not a LATS snapshot blob (${blob.length} bytes): it is truncated or ` +
        "garbage; pass the snapshot exactly as Reset or Step returned it");
    }
    const head = blob.subarray(0, 5);
    const mac = blob.subarray(5, HEADER_BYTES);
    const body = blob.subarray(HEADER_BYTES);
    if (head[4] !== FORMAT_VERSION) {
      throw invalid(`snapshot format v${head[4]} is not supported (this server reads ` +
        `v${FORMAT_VERSION}); continue it on the server version that made it`);
    }
    if (!timingSafeEqual(mac, this.mac(head, body))) {
      throw invalid("snapshot blob failed its signature check: it was altered or truncated, " +
        "or was signed with another key (replicas must share --snapshot-key / LATS_SNAPSHOT_KEY)");
    }
    const document = this.parse(body);
    if (document.env !== this.env || document.env_version !== this.envVersion) {
      throw invalid(`snapshot is from environment ${JSON.stringify(document.env)} ` +
        `v${String(document.env_version)}, but this server runs ${JSON.stringify(this.env)} ` +
        `v${this.envVersion}; continue it on a server of that environment`);
    }
    return { state: document.state as S, steps: document.steps as number,
             terminated: Boolean(document.terminated) };
  }

  private mac(head: Buffer, body: Buffer): Buffer {
    return createHmac("sha256", this.key).update(head).update(body).digest();
  }

  private parse(body: Buffer): Record<string, unknown> {
    let document: unknown;
    try {
      document = JSON.parse(inflateSync(body, { maxOutputLength: MAX_PAYLOAD_BYTES }).toString("utf8"));
    } catch (error) {
      throw invalid(`snapshot payload is unreadable: ${(error as Error).message}`);
    }
    const doc = document as Record<string, unknown>;
    if (typeof doc !== "object" || doc === null || !Number.isInteger(doc.steps) ||
        (doc.steps as number) < 0 || (doc.steps as number) > 2 ** 31 - 1 ||
        typeof doc.terminated !== "boolean" || !this.validState(doc.state)) {
      throw invalid("snapshot payload is not a snapshot document of this environment");
    }
    return doc;
  }
}
