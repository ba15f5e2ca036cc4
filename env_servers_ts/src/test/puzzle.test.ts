import assert from "node:assert/strict";
import { test } from "node:test";
import {
  applyMove, goalOf, isSolvable, isSolved, legalMoves, parseAction, render, shortestSolution,
} from "../puzzle";

test("the goal is solved and solvable; one move away is not solved", () => {
  const goal = goalOf(3);
  assert.ok(isSolved(goal) && isSolvable(goal));
  const moved = applyMove(goal, { tile: 8, direction: "right" });
  assert.deepEqual(moved, [1, 2, 3, 4, 5, 6, 7, 0, 8]);
  assert.ok(!isSolved(moved as number[]));
  assert.equal(shortestSolution(moved as number[]), 1);
});

test("legal moves are the tiles next to the blank, moving into it", () => {
  const board = [1, 2, 3, 4, 0, 6, 7, 5, 8];
  const moves = legalMoves(board).map((m) => `${m.tile} ${m.direction}`).sort();
  assert.deepEqual(moves, ["2 down", "4 right", "5 up", "6 left"]);
});

test("an illegal move and an unreadable action say why", () => {
  const board = [1, 2, 3, 4, 0, 6, 7, 5, 8];
  const illegal = applyMove(board, { tile: 1, direction: "down" });
  assert.equal(typeof illegal, "string");
  assert.match(illegal as string, /Legal moves: /);
  assert.equal(typeof parseAction("go north"), "string");
  assert.deepEqual(parseAction("  Slide 5 UP."), { tile: 5, direction: "up" });
});

test("an odd permutation cannot be solved", () => {
  assert.ok(!isSolvable([2, 1, 3, 4, 5, 6, 7, 8, 0]));
  assert.equal(shortestSolution([2, 1, 3, 4, 5, 6, 7, 8, 0], 12), null);
});

test("render shows the blank as _", () => {
  assert.equal(render([1, 2, 3, 4, 0, 6, 7, 5, 8]), "1 2 3\n4 _ 6\n7 5 8");
});
