import assert from "node:assert/strict";
import { test } from "node:test";
import * as path from "node:path";
import * as protoLoader from "@grpc/proto-loader";
import { SERVICE, tolerantDefinition } from "../service";

const pkg = protoLoader.loadSync("lats_pb/environment.proto", {
  includeDirs: [path.join(__dirname, "..", "..", "..", "protos")], keepCase: true, longs: String,
  enums: String, defaults: true, oneofs: true,
});
const methods = tolerantDefinition(pkg[SERVICE] as protoLoader.ServiceDefinition, pkg);

/** The refusal a request's bytes decode to, or "ok". */
function decoded(method: string, bytes: Buffer): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const request: any = methods[method].requestDeserialize(bytes);
  const marker = Object.getOwnPropertySymbols(request)[0];
  return marker === undefined ? "ok" : String(request[marker]);
}

test("bytes protobufjs alone would accept are refused on every method", () => {
  for (const method of Object.keys(methods)) {
    assert.match(decoded(method, Buffer.from([0x0a, 0xff, 0x01])), /runs past the end/, method);
    assert.match(decoded(method, Buffer.from([0x00, 0x01])), /field number 0/, method);
    assert.match(decoded(method, Buffer.from([0x0b])), /wire type 3/, method);
    assert.equal(decoded(method, Buffer.alloc(0)), "ok", method);
  }
});

test("nested messages, map entries and strings are checked too; good requests pass", () => {
  const reset = methods.Reset;
  const good = reset.requestSerialize({ seed: 3, options: { a: "b" },
    inline_task: { fields: { board: { listValue: { values: [{ numberValue: 1 }, { stringValue: "é" }] } } } } });
  assert.equal(decoded("Reset", good), "ok");
  const truncatedStruct = Buffer.concat([good, Buffer.from([0x12, 0x03, 0x0a, 0x05, 0x61])]);
  assert.match(decoded("Reset", truncatedStruct), /runs past the end/);
  const badOptionKey = Buffer.concat([good, Buffer.from([0x22, 0x04, 0x0a, 0x02, 0xc3, 0x28])]);
  assert.match(decoded("Reset", badOptionKey), /not valid UTF-8/);
  // A replay inside a snapshot inside a Step: nested three deep, and still checked.
  const step = methods.Step.requestSerialize({ actions: ["slide 8 left"],
    snapshot: { replay: { reset: { task_id: "sliding/test-000" }, actions: ["slide 2 left"] } } });
  assert.equal(decoded("Step", step), "ok");
  const badReplayAction = Buffer.from([0x0a, 0x06, 0x12, 0x04, 0x12, 0x02, 0xc3, 0x28]);
  assert.match(decoded("Step", badReplayAction), /not valid UTF-8/);
});

test("cut messages never end in half a surrogate pair", async () => {
  const { bounded, cut, quoted } = await import("../errors");
  const text = "0".repeat(999) + "\u{1441f}".repeat(10);
  assert.equal(cut(text, 1000), "0".repeat(999));
  assert.doesNotThrow(() => encodeURIComponent(bounded(text + "x".repeat(2000))));
  assert.match(quoted("é".repeat(100), 10), /^"é{10}"\.\.\. \(100 characters\)$/);
});
