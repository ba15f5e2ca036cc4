/**
 * The rules as an episode machine, with no gRPC in it: starting a task,
 * advancing an episode by one action (what each action of a Step answers),
 * and the checker that scores a state.
 */
import { Episode } from "./blobs";
import { failedPrecondition, invalid, notFound } from "./errors";
import {
  Board, applyMove, boardProblem, formatMove, isSolvable, isSolved, legalMoves, manhattan,
  misplaced, parseAction, render, shortestSolution,
} from "./puzzle";
import { findTask } from "./tasks";

export const NAME = "sliding_puzzle";
export const VERSION = "1.0.0";

/** Everything a state holds; it is copied whole into snapshot blobs. */
export interface PuzzleState { task_id: string; start: number[]; board: number[]; moves: string[] }

export function isPuzzleState(value: unknown): value is PuzzleState {
  const s = value as PuzzleState;
  return typeof s === "object" && s !== null && typeof s.task_id === "string" &&
    Array.isArray(s.start) && Array.isArray(s.board) && Array.isArray(s.moves) &&
    boardProblem(s.start) === "" && boardProblem(s.board) === "" &&
    s.start.length === s.board.length && s.moves.every((m) => typeof m === "string");
}

export interface StepResult {
  observation: string; reward: number; terminated: boolean; truncated: boolean;
  invalid_action: boolean; steps: number; info: Record<string, number | string | boolean>;
  /** The answer the step gives (environment.proto StepResult.answer_key). */
  answer_key: string;
}

/**
 * An episode's answer is the board it ends on (solved, or where the step limit
 * stopped it): two episodes that end on the same board gave the same answer,
 * whatever moves led there. A step that does not end the episode gives none.
 */
export function answerKey(board: Board, ended: boolean): string {
  return ended ? `board:${board.join("-")}` : "";
}

export function describeBoard(board: Board): string {
  return `Board:\n${render(board)}\nLegal moves: ${legalMoves(board).map(formatMove).join(", ")}`;
}

/** A task's first state, by id or from an inline spec {"board": [...]}. */
export function startState(task: { id?: string; inline?: Record<string, unknown> }): PuzzleState {
  if (task.inline !== undefined) return inlineState(task.inline);
  const found = findTask(task.id ?? "");
  if (!found) {
    throw notFound(`unknown task ${JSON.stringify((task.id ?? "").slice(0, 80))}; ListTasks ` +
      "names the tasks of each split");
  }
  return { task_id: found.id, start: [...found.board], board: [...found.board], moves: [] };
}

function inlineState(spec: Record<string, unknown>): PuzzleState {
  const extra = Object.keys(spec).filter((key) => key !== "board");
  if (extra.length) {
    throw invalid(`inline_task has unknown field(s) ${extra.join(", ")}; give only ` +
      "{\"board\": [cells in reading order, 0 for the blank]}");
  }
  let cells = spec.board;
  if (typeof cells === "string") {
    cells = cells.trim().split(/\s+/).map((c) => (c === "_" ? 0 : Number(c)));
  }
  if (!Array.isArray(cells)) {
    throw invalid("inline_task needs \"board\": a list of cells in reading order (0 = blank), " +
      "or a string like \"1 2 3 4 _ 6 7 5 8\"");
  }
  const problem = boardProblem(cells);
  if (problem) throw invalid(`inline_task board: ${problem}`);
  const board = cells as number[];
  if (!isSolvable(board)) throw invalid("inline_task board cannot reach the goal (odd permutation)");
  if (isSolved(board)) throw invalid("inline_task board is already solved; scramble it");
  return { task_id: `inline/${board.join("-")}`, start: [...board], board: [...board], moves: [] };
}

export function firstObservation(state: PuzzleState): string {
  return `Put the tiles in order with the blank last.\n${describeBoard(state.board)}`;
}

export function latestObservation(state: PuzzleState): string {
  return isSolved(state.board) ? `Solved in ${state.moves.length} moves.` : describeBoard(state.board);
}

/** One action on one episode: what Step answers, and the episode after it. */
export function advance(before: Episode<PuzzleState>, action: string, maxSteps: number):
    { result: StepResult; after: Episode<PuzzleState> } {
  checkNotOver(before, maxSteps);
  const steps = before.steps + 1;
  const truncatedIfOpen = steps >= maxSteps;
  const parsed = parseAction(action);
  const moved = typeof parsed === "string" ? parsed : applyMove(before.state.board, parsed);
  if (typeof moved === "string") {
    return {
      result: { observation: `Invalid move: ${moved}\n${describeBoard(before.state.board)}`,
                reward: 0, terminated: false, truncated: truncatedIfOpen, invalid_action: true,
                steps, info: { misplaced: misplaced(before.state.board) }, answer_key: "" },
      after: { state: before.state, steps, terminated: false },
    };
  }
  const state: PuzzleState = { ...before.state, board: [...moved],
                               moves: [...before.state.moves, formatMove(parsed as never)] };
  const solved = isSolved(moved);
  return {
    result: { observation: latestObservation(state), reward: solved ? 1 : 0, terminated: solved,
              truncated: !solved && truncatedIfOpen, invalid_action: false, steps,
              info: { misplaced: misplaced(moved), manhattan: manhattan(moved) },
              answer_key: answerKey(moved, solved || truncatedIfOpen) },
    after: { state, steps, terminated: solved },
  };
}

export function checkNotOver(episode: Episode<PuzzleState>, maxSteps: number): void {
  if (episode.terminated || episode.steps >= maxSteps) {
    const how = episode.terminated ? "solved" : `hit max_steps=${maxSteps}`;
    throw failedPrecondition(`the episode is over (${how} after ${episode.steps} steps); Reset ` +
      "for a new episode or continue from an earlier snapshot");
  }
}

/** The checker: solved or not, with move counts. It uses no hidden information. */
export function score(state: PuzzleState):
    { score: number; success: boolean; metrics: Record<string, number>; details: string } {
  const solved = isSolved(state.board);
  // Breadth-first search is exact and quick on 2x2 and 3x3 boards (at most 181,440
  // states); larger inline boards report the shortest solution as unknown (-1).
  const optimal = state.start.length <= 9 ? shortestSolution(state.start, 31) ?? -1 : -1;
  const moves = state.moves.length;
  const metrics: Record<string, number> = { moves, optimal_moves: optimal,
                                            misplaced: misplaced(state.board) };
  if (solved && optimal >= 0) metrics.efficiency = moves === 0 ? 1 : optimal / moves;
  return {
    score: solved ? 1 : 0, success: solved, metrics,
    details: solved ? `solved in ${moves} moves (shortest: ${optimal})`
                    : `not solved after ${moves} moves; ${misplaced(state.board)} tiles misplaced`,
  };
}

/** A whole episode as the prompts show it: the board, then each step and its observation. */
export function episodeText(board: number[], moves: string[]): string {
  let episode: Episode<PuzzleState> = { state: startState({ inline: { board } }), steps: 0,
                                        terminated: false };
  const lines = [describeBoard(board)];
  moves.forEach((move, i) => {
    const { result, after } = advance(episode, move, moves.length + 1);
    if (result.invalid_action) throw new Error(`example move ${move} is illegal`);
    lines.push(`Step ${i + 1}: ${move}`, `Observation: ${result.observation}`);
    episode = after;
  });
  if (!episode.terminated) throw new Error("an example episode must end solved");
  return lines.join("\n");
}
