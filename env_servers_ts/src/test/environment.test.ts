import assert from "node:assert/strict";
import { test } from "node:test";
import { BlobCodec, Episode } from "../blobs";
import { EnvError } from "../errors";
import { PuzzleState, advance, isPuzzleState, score, startState } from "../environment";
import { page } from "../paging";
import { fromStruct } from "../structs";
import { findTask, tasksOf } from "../tasks";
import { status } from "@grpc/grpc-js";

function code(run: () => unknown): status {
  try { run(); } catch (error) { if (error instanceof EnvError) return error.code; throw error; }
  assert.fail("expected a refusal");
}

test("tasks are deterministic, unsolved and findable by id", () => {
  const tasks = tasksOf("test");
  assert.equal(tasks.length, 60);
  assert.equal(new Set(tasks.map((t) => t.id)).size, 60);
  assert.ok(tasks.every((t) => findTask(t.id)?.board.join() === t.board.join()));
  assert.equal(code(() => startState({ id: "sliding/nope" })), status.NOT_FOUND);
});

test("a solving move ends the episode with reward 1 and Score agrees", () => {
  const state = startState({ inline: { board: [1, 2, 3, 4, 5, 6, 7, 0, 8] } });
  const start: Episode<PuzzleState> = { state, steps: 0, terminated: false };
  const bad = advance(start, "slide 2 up", 20);
  assert.ok(bad.result.invalid_action && !bad.result.terminated);
  assert.deepEqual(bad.after.state, state, "an invalid move keeps the board");
  const good = advance(bad.after, "slide 8 left", 20);
  assert.equal(good.result.reward, 1);
  assert.ok(good.result.terminated && good.result.steps === 2);
  const scored = score(good.after.state);
  assert.ok(scored.success);
  assert.equal(scored.metrics.optimal_moves, 1);
  assert.equal(code(() => advance(good.after, "slide 8 right", 20)), status.FAILED_PRECONDITION);
});

test("an episode's answer key is the board it ends on; other steps give none", () => {
  const state = startState({ inline: { board: [1, 2, 3, 4, 5, 6, 0, 7, 8] } });
  const start: Episode<PuzzleState> = { state, steps: 0, terminated: false };
  const midway = advance(start, "slide 7 left", 20);
  assert.equal(midway.result.answer_key, "");
  const solved = advance(midway.after, "slide 8 left", 20);
  assert.equal(solved.result.answer_key, "board:1-2-3-4-5-6-7-8-0");
  assert.equal(advance(start, "slide 2 up", 20).result.answer_key, "", "invalid: no answer");
  // two different last moves that end on the same board give the same answer
  const cutShort = advance(start, "slide 7 left", 1);
  assert.ok(cutShort.result.truncated);
  assert.equal(cutShort.result.answer_key, midway.after.state.board.join("-").replace(/^/, "board:"));
});

test("the step limit truncates", () => {
  let episode: Episode<PuzzleState> = { state: startState({ id: tasksOf("test")[0].id }), steps: 0,
                                        terminated: false };
  const first = advance(episode, "~", 2);
  assert.ok(!first.result.truncated);
  episode = first.after;
  assert.ok(advance(episode, "~", 2).result.truncated);
});

test("blobs round-trip and refuse tampering, other keys and other states", () => {
  const codec = new BlobCodec(Buffer.from("k"), "sliding_puzzle", "1.0.0", isPuzzleState);
  const episode = { state: startState({ id: tasksOf("test")[3].id }), steps: 4, terminated: false };
  const blob = codec.encode(episode);
  assert.deepEqual(codec.decode(blob), episode);
  for (let i = 0; i < blob.length; i += 7) {
    const damaged = Buffer.from(blob);
    damaged[i] ^= 0x5a;
    assert.equal(code(() => codec.decode(damaged)), status.INVALID_ARGUMENT);
  }
  assert.equal(code(() => codec.decode(blob.subarray(0, blob.length - 1))), status.INVALID_ARGUMENT);
  const other = new BlobCodec(Buffer.from("other"), "sliding_puzzle", "1.0.0", isPuzzleState);
  assert.equal(code(() => other.decode(blob)), status.INVALID_ARGUMENT);
  const foreign = new BlobCodec(Buffer.from("k"), "game24", "1.0.0", isPuzzleState);
  assert.equal(code(() => codec.decode(foreign.encode(episode))), status.INVALID_ARGUMENT);
  // Well signed, but an envelope no server makes: a negative step count.
  assert.equal(code(() => codec.decode(codec.encode({ ...episode, steps: -4 }))),
               status.INVALID_ARGUMENT);
});

test("inline tasks refuse NaN, bad boards and unsolvable boards", () => {
  const nan = { fields: { board: { kind: "listValue", listValue: { values: [
    { kind: "numberValue", numberValue: NaN }] } } } };
  assert.equal(code(() => fromStruct(nan)), status.INVALID_ARGUMENT);
  assert.equal(code(() => startState({ inline: { board: [1, 2, 3] } })), status.INVALID_ARGUMENT);
  assert.equal(code(() => startState({ inline: { board: [2, 1, 3, 4, 5, 6, 7, 8, 0] } })),
               status.INVALID_ARGUMENT);
  assert.equal(code(() => startState({ inline: { board: "1 2 3 4 5 6 7 8 _" } })),
               status.INVALID_ARGUMENT, "an already solved board is no task");
});

test("page tokens cover every id once and refuse forgeries", () => {
  const ids = Array.from({ length: 25 }, (_, i) => i);
  const first = page(ids, "test", "", 10);
  const second = page(ids, "test", first.next, 10);
  const third = page(ids, "test", second.next, 10);
  assert.deepEqual([...first.items, ...second.items, ...third.items], ids);
  assert.equal(third.next, "");
  for (const token of ["garbage", "eyJ4IjogMX0", "0".repeat(64)]) {
    assert.equal(code(() => page(ids, "test", token, 10)), status.INVALID_ARGUMENT);
  }
  assert.equal(code(() => page(ids, "train", first.next, 10)), status.INVALID_ARGUMENT);
});

test("few-shot examples end solved and use boards that are no task", async () => {
  const { EXAMPLE_EPISODES, EXAMPLES } = await import("../prompts");
  const boards = new Set([...tasksOf("test"), ...tasksOf("train")].map((t) => t.board.join()));
  for (const example of EXAMPLE_EPISODES) assert.ok(!boards.has(example.board.join()));
  assert.match(EXAMPLES, /Solved in 2 moves\.[\s\S]*Solved in 4 moves\./);
});

test("Score on a large inline board does not search; past deadlines are detected", async () => {
  const board = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15];
  const state = startState({ inline: { board } });
  assert.equal(score(state).metrics.optimal_moves, -1);
  const { deadlinePassed } = await import("../service");
  assert.ok(deadlinePassed(new Date(Date.now() - 1)));
  assert.ok(!deadlinePassed(Infinity));
  assert.ok(!deadlinePassed(Date.now() + 60_000));
});
