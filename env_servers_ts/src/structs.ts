/**
 * google.protobuf.Struct <-> plain JSON, as @grpc/proto-loader represents them
 * ({fields: {key: {numberValue: 1}}}). Non-finite numbers (NaN, Infinity) are
 * refused: JSON has no such values and no task needs them.
 */
import { invalid } from "./errors";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Pb = any;

export function fromStruct(struct: Pb, where = "inline_task"): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) {
    out[key] = fromValue(value, `${where}.${key}`);
  }
  return out;
}

function fromValue(value: Pb, where: string): Json {
  switch (value?.kind) {
    case "numberValue":
      if (!Number.isFinite(value.numberValue)) {
        throw invalid(`${where} is ${value.numberValue}; numbers in a task must be finite`);
      }
      return value.numberValue;
    case "stringValue": return value.stringValue;
    case "boolValue": return value.boolValue;
    case "structValue": return fromStruct(value.structValue, where);
    case "listValue":
      return (value.listValue?.values ?? []).map((v: Pb, i: number) => fromValue(v, `${where}[${i}]`));
    default: return null;
  }
}

export function toStruct(object: { [key: string]: Json }): Pb {
  const fields: Record<string, Pb> = {};
  for (const [key, value] of Object.entries(object)) fields[key] = toValue(value);
  return { fields };
}

function toValue(value: Json): Pb {
  if (value === null) return { nullValue: "NULL_VALUE" };
  if (typeof value === "number") return { numberValue: value };
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  return { structValue: toStruct(value) };
}
