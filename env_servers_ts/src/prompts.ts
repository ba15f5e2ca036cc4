/**
 * The prompt pack: everything a domain-agnostic planner needs to play the
 * puzzle with a language model. Templates use {name} placeholders; literal
 * braces would be doubled.
 */
import { episodeText } from "./environment";

export const INSTRUCTIONS =
  "Solve a sliding-block puzzle. The board is a grid of numbered tiles and one blank (_). " +
  "A move slides one tile that is next to the blank into it, written \"slide TILE DIRECTION\" " +
  "where DIRECTION (up, down, left or right) is the way the tile moves. The goal is the tiles " +
  "in order, left to right and top to bottom, with the blank in the bottom-right corner. " +
  "Each observation shows the board and the legal moves. Give exactly one move per step.";

/**
 * Few-shot episodes, rendered by the rules themselves so every observation is
 * exactly what the server answers. Their boards are in no task split.
 */
export const EXAMPLE_EPISODES: ReadonlyArray<{ board: number[]; moves: string[] }> = [
  { board: [1, 2, 3, 4, 5, 6, 0, 7, 8], moves: ["slide 7 left", "slide 8 left"] },
  { board: [0, 1, 3, 4, 2, 6, 7, 5, 8],
    moves: ["slide 1 left", "slide 2 up", "slide 5 up", "slide 8 left"] },
];

export const EXAMPLES = EXAMPLE_EPISODES
  .map(({ board, moves }, i) => `Example ${i + 1}\n${episodeText(board, moves)}`)
  .join("\n\n");

export const VALUE_EXAMPLES = `Board:
1 2 3
4 5 6
7 _ 8
Evaluation: tile 8 slides left and the puzzle is solved. Thus the score is 10

Board:
1 2 3
4 _ 6
7 5 8
Evaluation: two tiles are out of place, two moves from the goal. Thus the score is 8

Board:
4 1 3
7 2 6
_ 5 8
Evaluation: five tiles are out of place and the blank is far from the corner. Thus the score is 3`;

export const PROMPT_PACK = {
  instructions: INSTRUCTIONS,
  examples: EXAMPLES,
  act_template:
    "{instructions}\n\n{examples}\n{reflections}\nPuzzle:\n{task}\n{trajectory}Step {step}:",
  value_template:
    "Rate how close the latest board is to the goal (tiles 1..8 in order, blank last), " +
    "from 1 (far or stuck) to 10 (solved).\n\n{examples}\n\nPuzzle:\n{task}\n{trajectory}" +
    "Evaluation:",
  reflect_template:
    "{instructions}\n\nYou tried to solve this puzzle and did not finish it.\nPuzzle:\n{task}\n" +
    "{trajectory}Outcome: {outcome}\n\nIn two sentences, say what went wrong and which first " +
    "moves to try next time.\nReflection:",
  step_template: "Step {step}: {action}\nObservation: {observation}\n",
  reflection_template: "Reflection {index}: {reflection}\n",
  reflections_header: "Lessons from earlier attempts:\n",
  value_examples: VALUE_EXAMPLES,
  act_stop: ["\n"],
  value_stop: ["\n\n"],
  reflect_stop: ["\n\n"],
  value_pattern: "score is\\s*(\\d+(?:\\.\\d+)?)",
  value_min: 1,
  value_max: 10,
  act_max_tokens: 16,
  value_max_tokens: 64,
  reflect_max_tokens: 96,
  action_prefix_pattern: "^\\s*(?:Step \\d+:\\s*)?",
  variables: {},
  search_hints: { max_depth: 12, n_samples: 3, iterations: 20, simulate: true },
};
