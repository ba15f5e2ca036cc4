/**
 * Strict protobuf wire-format check, guided by the message descriptors.
 *
 * protobufjs decodes some malformed bytes without complaint (a length that
 * runs past the end, field number 0); the protocol says such a request is
 * INVALID_ARGUMENT, as every other server answers. `wireProblem(bytes, type,
 * types)` walks the bytes as `type` (recursing into message fields, checking
 * that strings are UTF-8) and returns what is wrong, or null if they are a
 * well-formed message.
 */

/** The parts of a google.protobuf.DescriptorProto that proto-loader exposes. */
export interface Descriptor {
  name: string;
  field?: { name: string; number: number; type: string; typeName?: string }[];
  nestedType?: Descriptor[];
}

/** Every message descriptor by full name (".lats.environment.v2.StepRequest"), nested ones included. */
export function descriptorsByName(roots: Record<string, Descriptor>): Map<string, Descriptor> {
  const byName = new Map<string, Descriptor>();
  const add = (name: string, type: Descriptor) => {
    byName.set(name, type);
    for (const nested of type.nestedType ?? []) add(`${name}.${nested.name}`, nested);
  };
  for (const [name, type] of Object.entries(roots)) add(`.${name}`, type);
  return byName;
}

const MAX_FIELD_NUMBER = 2 ** 29 - 1;
const MAX_DEPTH = 64;
const utf8 = new TextDecoder("utf-8", { fatal: true });

class Reader {
  constructor(readonly bytes: Uint8Array, public pos: number, readonly end: number) {}

  varint(): number {
    let value = 0;
    for (let shift = 0, i = 0; i < 10; i++, shift += 7) {
      if (this.pos >= this.end) throw new Error("a varint runs past the end");
      const byte = this.bytes[this.pos++];
      if (shift < 49) value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
    throw new Error("a varint is longer than 10 bytes");
  }

  skip(count: number): void {
    if (count > this.end - this.pos) throw new Error(`a field of ${count} bytes runs past the end`);
    this.pos += count;
  }
}

/** The full name a field's typeName refers to from inside message `scope` (protobuf scoping). */
function resolve(typeName: string, scope: string, types: Map<string, Descriptor>): string {
  if (typeName.startsWith(".")) return typeName;
  for (let outer = scope; outer; outer = outer.slice(0, Math.max(outer.lastIndexOf("."), 0))) {
    if (types.has(`${outer}.${typeName}`)) return `${outer}.${typeName}`;
  }
  return `.${typeName}`;
}

export function wireProblem(bytes: Uint8Array, type: string,
                            types: Map<string, Descriptor>): string | null {
  try {
    check(new Reader(bytes, 0, bytes.length), type, types, 0);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function check(reader: Reader, typeName: string, types: Map<string, Descriptor>,
               depth: number): void {
  if (depth > MAX_DEPTH) throw new Error(`messages nest deeper than ${MAX_DEPTH}`);
  const fields = new Map((types.get(typeName)?.field ?? []).map((f) => [f.number, f]));
  while (reader.pos < reader.end) {
    const tag = reader.varint();
    const number = Math.floor(tag / 8), wireType = tag % 8;
    if (number < 1 || number > MAX_FIELD_NUMBER) throw new Error(`field number ${number} is not allowed`);
    if (wireType === 0) reader.varint();
    else if (wireType === 1) reader.skip(8);
    else if (wireType === 5) reader.skip(4);
    else if (wireType === 2) {
      const length = reader.varint();
      const start = reader.pos;
      reader.skip(length);
      const field = fields.get(number);
      if (field?.type === "TYPE_MESSAGE" && field.typeName) {
        check(new Reader(reader.bytes, start, start + length),
              resolve(field.typeName, typeName, types), types, depth + 1);
      } else if (field?.type === "TYPE_STRING") {
        try {
          utf8.decode(reader.bytes.subarray(start, start + length));
        } catch {
          throw new Error(`field ${field.name} is not valid UTF-8`);
        }
      }
    } else {
      throw new Error(`wire type ${wireType} (field ${number}) is not used by proto3 messages`);
    }
  }
}
