/**
 * In-memory sessions: id -> episode, with idle expiry and a capacity.
 *
 * Ids are unguessable (128 random bits). A session idle longer than the TTL is
 * gone: `get` answers NOT_FOUND, and a periodic sweep frees it even if nobody
 * asks. `open` answers RESOURCE_EXHAUSTED when `maxSessions` are open. Node
 * runs each call to completion on one thread, so no per-session lock is needed.
 */
import { randomBytes } from "node:crypto";
import { Episode } from "./blobs";
import { exhausted, notFound } from "./errors";

interface Session<S> { episode: Episode<S>; lastUsed: number }

export class SessionStore<S> {
  private readonly sessions = new Map<string, Session<S>>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(readonly maxSessions: number, readonly ttlSeconds: number,
              private readonly clock: () => number = () => performance.now() / 1000) {
    if (maxSessions < 1 || ttlSeconds <= 0) throw new Error("max sessions and TTL must be positive");
  }

  get size(): number { return this.sessions.size; }

  startSweeper(): void {
    const every = Math.max(0.2, Math.min(this.ttlSeconds / 4, 30));
    this.sweeper = setInterval(() => this.sweep(), every * 1000);
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sessions.clear();
  }

  ensureRoom(): void {
    if (this.sessions.size >= this.maxSessions) this.sweep();
    if (this.sessions.size >= this.maxSessions) {
      throw exhausted(`${this.sessions.size} sessions open; Close finished sessions, ` +
        "use the stateless Start/Transition calls, or raise --max-sessions");
    }
  }

  open(episode: Episode<S>): string {
    this.ensureRoom();
    const id = randomBytes(16).toString("base64url");
    this.sessions.set(id, { episode, lastUsed: this.clock() });
    return id;
  }

  /** The live session's episode (marked as used now), else NOT_FOUND. */
  get(id: string): Episode<S> {
    const session = this.live(id);
    session.lastUsed = this.clock();
    return session.episode;
  }

  replace(id: string, episode: Episode<S>): void {
    const session = this.live(id);
    session.episode = episode;
    session.lastUsed = this.clock();
  }

  close(id: string): void {
    this.live(id);
    this.sessions.delete(id);
  }

  sweep(): number {
    const now = this.clock();
    let dropped = 0;
    for (const [id, session] of this.sessions) {
      if (now - session.lastUsed > this.ttlSeconds) { this.sessions.delete(id); dropped++; }
    }
    return dropped;
  }

  private live(id: string): Session<S> {
    const session = this.sessions.get(id);
    if (!session || this.clock() - session.lastUsed > this.ttlSeconds) {
      if (session) this.sessions.delete(id);
      const shown = id.length <= 64 ? id : `${id.slice(0, 64)}...`;
      throw notFound(`session ${JSON.stringify(shown)} expired, was closed or never existed; ` +
        "call Reset for a new episode or Restore a snapshot blob");
    }
    return session;
  }
}
