/**
 * The sliding-block puzzle: an N x N board of tiles 1..N*N-1 and one blank (0).
 *
 * An action slides one tile next to the blank into it, named by its number and
 * the direction it moves: "slide 8 left". The goal is the tiles in reading
 * order with the blank last. Every function here is pure: boards are plain
 * arrays, never mutated, so a state can be copied into a snapshot blob as is.
 */

export type Board = readonly number[];
export type Direction = "up" | "down" | "left" | "right";

export const DIRECTIONS: readonly Direction[] = ["up", "down", "left", "right"];
const OFFSETS: Record<Direction, [number, number]> = {
  up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1],
};

/** The side length of a square board, or an error message. */
export function sideOf(board: Board): number {
  return Math.round(Math.sqrt(board.length));
}

/** Why `board` is not a valid square puzzle (empty string when it is). */
export function boardProblem(board: readonly unknown[]): string {
  const side = Math.round(Math.sqrt(board.length));
  if (side < 2 || side > 5 || side * side !== board.length) {
    return `a board has 4, 9, 16 or 25 cells (2x2 to 5x5), not ${board.length}`;
  }
  const seen = new Set<number>();
  for (const cell of board) {
    if (typeof cell !== "number" || !Number.isInteger(cell) || cell < 0 || cell >= board.length) {
      return `cells are the integers 0..${board.length - 1} (0 is the blank); got ${String(cell)}`;
    }
    if (seen.has(cell)) return `cell ${cell} appears twice`;
    seen.add(cell);
  }
  return "";
}

export function goalOf(side: number): Board {
  return [...Array.from({ length: side * side - 1 }, (_, i) => i + 1), 0];
}

export function isSolved(board: Board): boolean {
  return board.every((cell, i) => cell === (i === board.length - 1 ? 0 : i + 1));
}

/** Whether the goal can be reached from `board` at all (the parity rule). */
export function isSolvable(board: Board): boolean {
  const side = sideOf(board);
  const tiles = board.filter((cell) => cell !== 0);
  let inversions = 0;
  for (let i = 0; i < tiles.length; i++) {
    for (let j = i + 1; j < tiles.length; j++) if (tiles[i] > tiles[j]) inversions++;
  }
  if (side % 2 === 1) return inversions % 2 === 0;
  const blankRowFromBottom = side - Math.floor(board.indexOf(0) / side);
  return (inversions + blankRowFromBottom) % 2 === 1;
}

/** A tile move: which tile, and where it goes. */
export interface Move { tile: number; direction: Direction }

/** The moves legal on `board`, in a fixed order (by direction). */
export function legalMoves(board: Board): Move[] {
  const side = sideOf(board);
  const blank = board.indexOf(0);
  const [row, col] = [Math.floor(blank / side), blank % side];
  const moves: Move[] = [];
  for (const direction of DIRECTIONS) {
    // The tile that moves `direction` into the blank sits on the opposite side.
    const [dr, dc] = OFFSETS[direction];
    const [r, c] = [row - dr, col - dc];
    if (r >= 0 && r < side && c >= 0 && c < side) moves.push({ tile: board[r * side + c], direction });
  }
  return moves;
}

export function formatMove(move: Move): string {
  return `slide ${move.tile} ${move.direction}`;
}

const ACTION = /^\s*(?:slide|move)\s+(\d+)\s+(up|down|left|right)\s*[.!]?\s*$/i;

/** The move an action names, or the reason it names none. */
export function parseAction(action: string): Move | string {
  const match = ACTION.exec(action);
  if (!match) {
    return `cannot read ${JSON.stringify(action.slice(0, 80))}: write one move as ` +
      `"slide TILE DIRECTION", e.g. "slide 8 left"`;
  }
  return { tile: Number(match[1]), direction: match[2].toLowerCase() as Direction };
}

/** The board after `move`, or the reason the move is illegal. */
export function applyMove(board: Board, move: Move): Board | string {
  const legal = legalMoves(board);
  if (!legal.some((m) => m.tile === move.tile && m.direction === move.direction)) {
    const options = legal.map(formatMove).join(", ");
    return `tile ${move.tile} cannot slide ${move.direction}: only a tile next to the blank ` +
      `slides into it. Legal moves: ${options}`;
  }
  const next = [...board];
  const from = board.indexOf(move.tile);
  const to = board.indexOf(0);
  next[to] = move.tile;
  next[from] = 0;
  return next;
}

/** The board as rows of numbers, "_" for the blank. */
export function render(board: Board): string {
  const side = sideOf(board);
  const width = String(board.length - 1).length;
  const rows: string[] = [];
  for (let r = 0; r < side; r++) {
    const cells = board.slice(r * side, (r + 1) * side);
    rows.push(cells.map((c) => (c === 0 ? "_" : String(c)).padStart(width)).join(" "));
  }
  return rows.join("\n");
}

/** Number of tiles not on their goal square: 0 exactly when solved. */
export function misplaced(board: Board): number {
  return board.filter((cell, i) => cell !== 0 && cell !== i + 1).length;
}

/** Sum over tiles of their grid distance to their goal square. */
export function manhattan(board: Board): number {
  const side = sideOf(board);
  let total = 0;
  board.forEach((cell, i) => {
    if (cell === 0) return;
    const goal = cell - 1;
    total += Math.abs(Math.floor(i / side) - Math.floor(goal / side)) + Math.abs((i % side) - (goal % side));
  });
  return total;
}

/** Fewest moves from `board` to the goal (breadth-first; for small boards only). */
export function shortestSolution(board: Board, limit = 40): number | null {
  const key = (b: Board) => b.join(",");
  let frontier: Board[] = [board];
  const seen = new Set([key(board)]);
  for (let depth = 0; depth <= limit; depth++) {
    const next: Board[] = [];
    for (const b of frontier) {
      if (isSolved(b)) return depth;
      for (const move of legalMoves(b)) {
        const after = applyMove(b, move) as Board;
        const k = key(after);
        if (!seen.has(k)) { seen.add(k); next.push(after); }
      }
    }
    if (next.length === 0) return null;
    frontier = next;
  }
  return null;
}
