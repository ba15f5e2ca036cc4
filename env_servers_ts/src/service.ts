/**
 * The lats.environment.v2.Environment RPCs for the sliding puzzle on @grpc/grpc-js.
 *
 * Each handler validates its request, runs the rules (environment.ts) and
 * answers; refusals are typed statuses (errors.ts), and an unexpected failure
 * is logged and answered INTERNAL without stopping the server. A request whose
 * bytes do not decode reaches its handler as a marker and is INVALID_ARGUMENT.
 */
import * as grpc from "@grpc/grpc-js";
import { PackageDefinition, ServiceDefinition } from "@grpc/proto-loader";
import { BlobCodec, Episode } from "./blobs";
import * as env from "./environment";
import { bounded, EnvError, invalid, quoted } from "./errors";
import { page } from "./paging";
import { PROMPT_PACK } from "./prompts";
import { formatMove, legalMoves } from "./puzzle";
import { fromStruct, toStruct } from "./structs";
import { DEFAULT_SPLIT, SPLITS, isSplit, tasksOf } from "./tasks";
import { Descriptor, descriptorsByName, wireProblem } from "./wire";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Pb = any;
type State = env.PuzzleState;

// Reset options, all keys and values together (the puzzle takes none: any is refused).
const MAX_OPTION_BYTES = 4096;

export interface Settings {
  maxSteps: number; maxActionBytes: number; maxBatchActions: number; key: Buffer;
}

/** The protocol version this server speaks: its proto package. */
export const PROTOCOL = "lats.environment.v2";
export const SERVICE = `${PROTOCOL}.Environment`;

const DECODE_ERROR = Symbol("undecodable request");

/**
 * A copy of `definition` whose requests decode to a marker instead of throwing,
 * and whose bytes are first checked strictly against the descriptors in `pkg`
 * (protobufjs alone accepts some malformed messages; see wire.ts).
 */
export function tolerantDefinition(definition: ServiceDefinition,
                                   pkg: PackageDefinition): ServiceDefinition {
  const roots: Record<string, Descriptor> = {};
  for (const [name, entry] of Object.entries(pkg)) {
    const type = (entry as { type?: Descriptor }).type;
    if (type && "format" in entry) roots[name] = type;
  }
  const types = descriptorsByName(roots);
  const copy: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    // The request type's full name: its descriptor name in the service's package.
    const servicePackage = method.path.slice(1, method.path.lastIndexOf(".", method.path.indexOf("/", 1)));
    const requestType = `.${servicePackage}.${(method.requestType as { type: Descriptor }).type.name}`;
    copy[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const problem = wireProblem(bytes, requestType, types);
        if (problem !== null) return { [DECODE_ERROR]: problem };
        try {
          return method.requestDeserialize(bytes);
        } catch (error) {
          return { [DECODE_ERROR]: (error as Error).message };
        }
      },
    };
  }
  return copy as ServiceDefinition;
}

/** The kinds of snapshot; this server makes blobs and refuses replays. */
type SnapshotKind = "blob" | "replay";

export class PuzzleService {
  private readonly codec: BlobCodec<State>;
  private readonly description: Pb;

  constructor(readonly settings: Settings) {
    this.codec = new BlobCodec(settings.key, env.NAME, env.VERSION, env.isPuzzleState);
    this.description = this.describe();
  }

  /** The handlers, by RPC name, for grpc.Server.addService. */
  handlers(): grpc.UntypedServiceImplementation {
    const rpcs: Record<string, (request: Pb) => Pb> = {
      Describe: () => this.description,
      ListTasks: (r) => this.listTasks(r),
      Reset: (r) => this.reset(r),
      Step: (r) => this.step(r),
      Score: (r) => this.score(r),
    };
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const [name, rpc] of Object.entries(rpcs)) {
      handlers[name] = (call: grpc.ServerUnaryCall<Pb, Pb>, callback: grpc.sendUnaryData<Pb>) => {
        callback(...answer(name, () => {
          if (call.request?.[DECODE_ERROR] !== undefined) {
            throw invalid(`the ${name} request does not decode as ${PROTOCOL}.${name}Request ` +
              `(${call.request[DECODE_ERROR]}); send a well-formed protobuf message`);
          }
          if (call.cancelled) throw new EnvError(grpc.status.CANCELLED, "the call was cancelled");
          if (deadlinePassed(call.getDeadline())) {
            throw new EnvError(grpc.status.DEADLINE_EXCEEDED,
              `the ${name} call's deadline passed before the server could start it; retry with a longer deadline`);
          }
          return rpc(call.request);
        }));
      };
    }
    return handlers;
  }

  private describe(): Pb {
    const first = tasksOf(DEFAULT_SPLIT)[0];
    const s = this.settings;
    return {
      name: env.NAME,
      version: env.VERSION,
      description: "The 8-puzzle: slide numbered tiles on a 3x3 board into order, one tile " +
        "per step. Multi-step state (the board) makes snapshots matter; a checker anyone can " +
        "run decides success. Served by a TypeScript process on Node.",
      capabilities: { inline_tasks: true, score: true },
      action_grammar: {
        description: "slide TILE DIRECTION: move the numbered tile next to the blank into it; " +
          "DIRECTION (up, down, left, right) is where the tile goes. Each observation lists the " +
          "legal moves.",
        // The first task's legal moves, so conformance probes play real moves.
        examples: legalMoves(first.board).map(formatMove),
        pattern: "^\\s*(?:slide|move)\\s+\\d+\\s+(?:up|down|left|right)\\b",
      },
      reward_range: { min: 0, max: 1, success_threshold: 1 },
      limits: { max_steps: s.maxSteps, max_action_bytes: s.maxActionBytes,
                max_batch_actions: s.maxBatchActions, max_option_bytes: MAX_OPTION_BYTES },
      prompt_pack: PROMPT_PACK,
      splits: [...SPLITS],
      reward_mode: "REWARD_MODE_NONE",
      // Step results name the board an episode ends on (environment.ts answerKey).
      facts: { answer_keys: true },
    };
  }

  private listTasks(request: Pb): Pb {
    const split = request.split || DEFAULT_SPLIT;
    if (!isSplit(split)) {
      throw invalid(`unknown split ${quoted(split)}; Describe lists ${SPLITS.join(", ")}`);
    }
    const ids = tasksOf(split).map((task) => task.id);
    const { items, next } = page(ids, split, request.page_token, request.page_size);
    return { task_ids: items, next_page_token: next, total: ids.length };
  }

  private startOf(request: Pb): State {
    if (request?.task === "task_id" && request.task_id) return env.startState({ id: request.task_id });
    if (request?.task === "inline_task") {
      return env.startState({ inline: fromStruct(request.inline_task) });
    }
    throw invalid("name a task: set task_id (see ListTasks) or inline_task {\"board\": [...]}");
  }

  private checkOptions(request: Pb): void {
    const options: Record<string, string> = request?.options ?? {};
    const keys = Object.keys(options);
    const size = keys.reduce((total, key) =>
      total + Buffer.byteLength(key, "utf8") + Buffer.byteLength(options[key] ?? "", "utf8"), 0);
    if (size > MAX_OPTION_BYTES) {
      throw invalid(`Reset options are ${size} bytes in all (keys and values), more than ` +
        `max_option_bytes=${MAX_OPTION_BYTES} (Describe.limits); send fewer, shorter options`);
    }
    if (keys.length) {
      throw invalid(`unknown option(s) ${keys.slice(0, 3).map((key) => quoted(key, 40)).join(", ")}` +
        `${keys.length > 3 ? ` and ${keys.length - 3} more` : ""}; the sliding puzzle takes no options`);
    }
  }

  private reset(request: Pb): Pb {
    const state = this.startOf(request);
    this.checkOptions(request);
    return { observation: env.firstObservation(state), task_id: state.task_id,
             info: toStruct({ optimal_hint: "none" }),
             snapshot: { blob: this.codec.encode({ state, steps: 0, terminated: false }) } };
  }

  private step(request: Pb): Pb {
    const actions: string[] = request.actions ?? [];
    if (actions.length === 0) throw invalid("Step needs at least one action in `actions`");
    if (actions.length > this.settings.maxBatchActions) {
      throw invalid(`Step carries ${actions.length} actions, more than ` +
        `limits.max_batch_actions=${this.settings.maxBatchActions}; split the batch`);
    }
    actions.forEach((action) => this.checkAction(action));
    const before = this.episodeOf(request, "Step");
    env.checkNotOver(before, this.settings.maxSteps);
    return {
      results: actions.map((action) => {
        const { result, after } = env.advance(before, action, this.settings.maxSteps);
        return { ...stepResult(result), snapshot: { blob: this.codec.encode(after) } };
      }),
    };
  }

  private score(request: Pb): Pb {
    return env.score(this.episodeOf(request, "Score").state);
  }

  /** The episode a Step or Score request's snapshot names: one of this server's blobs. */
  private episodeOf(request: Pb, method: string): Episode<State> {
    const kind: SnapshotKind | undefined = request.snapshot?.kind;
    if (kind === undefined) {
      throw invalid(`${method} needs a snapshot: pass the one Reset or Step returned`);
    }
    if (kind !== "blob") {
      throw invalid(`this server's snapshots are blobs, and this one is a ${kind}; pass a ` +
        "snapshot this environment's Reset or Step returned, unchanged");
    }
    return this.codec.decode(request.snapshot.blob);
  }

  private checkAction(action: string): void {
    if (!action || !action.trim()) {
      throw invalid("action is empty; send one action as text, e.g. \"slide 8 left\"");
    }
    const size = Buffer.byteLength(action, "utf8");
    if (size > this.settings.maxActionBytes) {
      throw invalid(`action is ${size} bytes, more than max_action_bytes=` +
        `${this.settings.maxActionBytes}; send one shorter action`);
    }
  }
}

/**
 * A service definition for the retired protocol version (lats.v1.Environment):
 * every one of its methods takes any bytes and is answered FAILED_PRECONDITION
 * naming the version this server speaks, so an old client learns what to
 * upgrade to instead of meeting UNIMPLEMENTED.
 */
export const RETIRED_SERVICE = "lats.v1.Environment";
const RETIRED_METHODS = ["Describe", "ListTasks", "Reset", "Step", "Snapshot", "Restore", "Close",
  "Score", "Start", "Transition"];

export function retiredVersion(): { definition: grpc.ServiceDefinition;
                                    handlers: grpc.UntypedServiceImplementation } {
  const same = (bytes: Buffer) => bytes;
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of RETIRED_METHODS) {
    const path = `/${RETIRED_SERVICE}/${method}`;
    definition[method] = { path, requestStream: false, responseStream: false,
      requestSerialize: same, requestDeserialize: same, responseSerialize: same,
      responseDeserialize: same };
    handlers[method] = (_call: grpc.ServerUnaryCall<Buffer, Buffer>,
                        callback: grpc.sendUnaryData<Buffer>) => {
      const message = `${path} belongs to ${RETIRED_SERVICE}, a retired version of the ` +
        `environment protocol; this server speaks ${PROTOCOL} (Reset and Step on snapshots, no ` +
        `sessions; docs/protocol.md): upgrade the client to ${PROTOCOL}`;
      callback({ code: grpc.status.FAILED_PRECONDITION, details: message, message,
                 name: "EnvError", metadata: new grpc.Metadata() });
    };
  }
  return { definition: definition as grpc.ServiceDefinition, handlers };
}

/** Whether a call's deadline (a Date, epoch milliseconds, or Infinity for none) has passed. */
export function deadlinePassed(deadline: grpc.Deadline): boolean {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) && at <= Date.now();
}

function stepResult(result: env.StepResult): Pb {
  return { ...result, info: toStruct(result.info) };
}

/** The callback arguments for running `rpc`: a typed status on refusal, INTERNAL on a bug. */
function answer(name: string, rpc: () => Pb): [grpc.ServiceError | null, Pb?] {
  try {
    return [null, rpc()];
  } catch (error) {
    if (error instanceof EnvError) {
      const message = bounded(error.message);
      return [{ code: error.code, details: message, message,
                name: "EnvError", metadata: new grpc.Metadata() }];
    }
    console.error(`${name} failed:`, error);
    const message = bounded(`environment error in ${name}: ${(error as Error)?.message ?? String(error)}`);
    return [{ code: grpc.status.INTERNAL, details: message, message, name: "Error",
              metadata: new grpc.Metadata() }];
  }
}

