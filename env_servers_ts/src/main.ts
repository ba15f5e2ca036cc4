/**
 * `node dist/main.js [options]`: serves the sliding-puzzle environment.
 *
 * Prints "listening on HOST:PORT" once bound (port 0 picks a free one), serves
 * gRPC health checking and server reflection beside lats.environment.v2.Environment
 * (and answers the retired lats.v1.Environment with FAILED_PRECONDITION naming
 * this version), and on SIGTERM / SIGINT stops gracefully: health turns
 * NOT_SERVING, calls in flight finish (up to --grace seconds), then the process
 * exits 0. With --exit-with-parent (or LATS_EXIT_WITH_PARENT=1) it stops the
 * same way as soon as the process that started it is gone, however that process
 * died, as the Python services started by `lats` do.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation } from "grpc-health-check";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { snapshotKey } from "./blobs";
import { PuzzleService, SERVICE, Settings, retiredVersion, tolerantDefinition } from "./service";

const USAGE = `usage: node dist/main.js [--host 127.0.0.1] [--port 50061] [--snapshot-key KEY]
  [--max-steps 20] [--max-action-bytes 256] [--max-batch-actions 16] [--grace 10]
  [--protos DIR] [--exit-with-parent]
The snapshot key may also come from LATS_SNAPSHOT_KEY; replicas must share it.
--exit-with-parent: stop when the process that started this one exits.`;
const PARENT_CHECK_MS = 500;

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`--${name} must be a positive number, not ${JSON.stringify(text)}\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

function protosDir(given: string | undefined): string {
  const candidates = [given, process.env.LATS_PROTOS_DIR, path.resolve(__dirname, "../../protos")];
  for (const dir of candidates) {
    if (dir && existsSync(path.join(dir, "lats_pb", "environment.proto"))) return dir;
  }
  console.error("cannot find lats_pb/environment.proto; pass --protos DIR (the repository's protos/)");
  process.exit(2);
}

function main(): void {
  const names = ["host", "port", "snapshot-key", "max-steps", "max-action-bytes",
    "max-batch-actions", "grace", "protos"];
  const options: Record<string, { type: "string" | "boolean" }> = {
    help: { type: "boolean" }, "exit-with-parent": { type: "boolean" },
  };
  for (const name of names) options[name] = { type: "string" };
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ options }).values as Record<string, unknown>;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) { console.log(USAGE); return; }
  const arg = (name: string) => values[name] as string | undefined;
  const settings: Settings = {
    maxSteps: Math.floor(positive("max-steps", arg("max-steps"), 20)),
    maxActionBytes: Math.floor(positive("max-action-bytes", arg("max-action-bytes"), 256)),
    maxBatchActions: Math.floor(positive("max-batch-actions", arg("max-batch-actions"), 16)),
    key: snapshotKey(arg("snapshot-key") ?? process.env.LATS_SNAPSHOT_KEY),
  };
  const grace = positive("grace", arg("grace"), 10);
  const host = arg("host") ?? "127.0.0.1";
  const port = arg("port") ?? "50061";

  const definition = protoLoader.loadSync("lats_pb/environment.proto", {
    includeDirs: [protosDir(arg("protos"))], keepCase: true, longs: String, enums: String,
    defaults: true, oneofs: true,
  });
  const service = new PuzzleService(settings);
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 4 * 1024 * 1024,
    "grpc.keepalive_permit_without_calls": 1,
  });
  server.addService(tolerantDefinition(definition[SERVICE] as protoLoader.ServiceDefinition,
                                       definition),
                    service.handlers());
  const retired = retiredVersion();
  server.addService(retired.definition, retired.handlers);
  const health = new HealthImplementation({ "": "SERVING", [SERVICE]: "SERVING" });
  health.addToServer(server);
  new ReflectionService(definition).addToServer(server);

  server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => {
    if (error) {
      console.error(`cannot listen on ${host}:${port}: ${error.message}`);
      process.exit(1);
    }
    const shown = host.includes(":") ? `[${host}]` : host;
    console.log(`sliding_puzzle (TypeScript) listening on ${shown}:${bound}`);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping (health NOT_SERVING, finishing calls in flight)`);
    health.setStatus("", "NOT_SERVING");
    health.setStatus(SERVICE, "NOT_SERVING");
    const force = setTimeout(() => { server.forceShutdown(); }, grace * 1000);
    server.tryShutdown(() => {
      clearTimeout(force);
      console.log("stopped");
      process.exit(0);
    });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  if (values["exit-with-parent"] || process.env.LATS_EXIT_WITH_PARENT === "1") {
    watchParent(() => stop("parent exited"));
  }
}

/** Calls `gone` once the parent process has exited (this one is then re-parented). */
function watchParent(gone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      gone();
    }
  }, PARENT_CHECK_MS);
  timer.unref();
}

main();
