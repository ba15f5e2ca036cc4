/**
 * The task list: scrambled 3x3 boards, generated deterministically.
 *
 * Each task is the goal board walked away from by a fixed number of random
 * moves (a seeded generator, no immediate move-backs), kept only if its
 * shortest solution is at least 2 moves and no earlier task has the same board. The same ids give the same boards in
 * every process and on every machine, so replicas agree without sharing files.
 */

import { Board, applyMove, goalOf, legalMoves, shortestSolution } from "./puzzle";

export interface Task { id: string; board: Board; scramble: number }

export const SPLITS = ["test", "train"] as const;
export type Split = (typeof SPLITS)[number];
export const DEFAULT_SPLIT: Split = "test";

const SIZES: Record<Split, number> = { test: 60, train: 40 };
const SEEDS: Record<Split, number> = { test: 1601, train: 2602 };

/** mulberry32: a small, well-known 32-bit generator (deterministic across platforms). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function scrambled(random: () => number, moves: number): Board {
  let board = goalOf(3);
  let previous = -1;
  for (let i = 0; i < moves; i++) {
    const options = legalMoves(board).filter((m) => m.tile !== previous);
    const move = options[Math.floor(random() * options.length)];
    board = applyMove(board, move) as Board;
    previous = move.tile;
  }
  return board;
}

function build(split: Split): Task[] {
  const random = generator(SEEDS[split]);
  const tasks: Task[] = [];
  const seen = new Set<string>();
  while (tasks.length < SIZES[split]) {
    // Difficulty grows along the list: 3 scramble moves first, up to 12.
    const scramble = 3 + Math.floor((tasks.length * 10) / SIZES[split]);
    const board = scrambled(random, scramble);
    if ((shortestSolution(board, scramble) ?? 0) < 2 || seen.has(board.join())) continue;
    seen.add(board.join());
    const number = String(tasks.length).padStart(3, "0");
    tasks.push({ id: `sliding/${split}-${number}`, board, scramble });
  }
  return tasks;
}

const cache = new Map<Split, Task[]>();

export function tasksOf(split: Split): Task[] {
  let tasks = cache.get(split);
  if (!tasks) { tasks = build(split); cache.set(split, tasks); }
  return tasks;
}

export function isSplit(name: string): name is Split {
  return (SPLITS as readonly string[]).includes(name);
}

/** The task with `id`, or undefined. */
export function findTask(id: string): Task | undefined {
  for (const split of SPLITS) {
    const found = tasksOf(split).find((task) => task.id === id);
    if (found) return found;
  }
  return undefined;
}
