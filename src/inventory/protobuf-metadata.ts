/**
 * Pure: one page of a metadata list served as protobuf
 * (`application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`) ->
 * the snapshot's ObjectMetadata, built field by field from the wire without building the
 * objects the page holds (managedFields, resourceVersion and every other field are skipped by
 * their wire type). The result is what `toObjectMetadata` (list.ts) keeps of the JSON of the same
 * objects.
 *
 * The format, from k8s.io/apimachinery v0.37.2:
 * - pkg/runtime/serializer/protobuf/protobuf.go: the body is the 4 bytes `k8s\0`, then a
 *   runtime.Unknown;
 * - pkg/runtime/generated.proto: Unknown {typeMeta=1 (TypeMeta {apiVersion=1, kind=2}), raw=2,
 *   contentEncoding=3, contentType=4}; `raw` holds the list;
 * - pkg/apis/meta/v1/generated.proto: PartialObjectMetadataList {metadata=1 (ListMeta
 *   {resourceVersion=2, continue=3}), items=2}, PartialObjectMetadata {metadata=1}, ObjectMeta
 *   {name=1, namespace=3, uid=5, creationTimestamp=8, deletionTimestamp=9, labels=11,
 *   annotations=12 (map entries {key=1, value=2}), ownerReferences=13, finalizers=14},
 *   OwnerReference {kind=1, name=3, uid=4, apiVersion=5, controller=6, blockOwnerDeletion=7},
 *   Time {seconds=1, nanos=2};
 * - pkg/apis/meta/v1/time_proto.go (Time.Unmarshal: an empty Time is the zero time, nanos are
 *   dropped) and time.go (Time.MarshalJSON: the zero time is null, else RFC 3339 in UTC, whole
 *   seconds).
 * The wire format is read with protobufjs's Reader. The bytes are untrusted: a page that is not
 * this format, or is truncated or malformed, throws MalformedPageError and yields nothing.
 * Strings are decoded as UTF-8 with invalid bytes replaced (U+FFFD, per maximal invalid sequence).
 */
import protobuf from 'protobufjs/minimal.js';
import {
  assembleMetadata,
  intern,
  isDroppedKey,
  keepEntry,
  type KeptFields,
  type StringPool,
} from './list.js';
import type { ObjectMetadata, OwnerReference } from './types.js';

type Reader = protobuf.Reader;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The media type of a protobuf answer (its Content-Type starts with it). */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/** A page that is not a valid protobuf PartialObjectMetadataList (the message says what and where). */
export class MalformedPageError extends Error {
  override readonly name = 'MalformedPageError';
}

/** The apiVersion, kind and resource every item of the page gets, and the inventory's StringPool. */
export interface KeepAs {
  readonly apiVersion: string;
  readonly kind: string;
  readonly resource: string;
  readonly pool?: StringPool;
}

/** One decoded page: its items as the snapshot keeps them, and the list's metadata. */
export interface MetadataPage {
  readonly items: ObjectMetadata[];
  /** ListMeta.continue; undefined when empty (the last page). */
  readonly continue?: string;
  readonly resourceVersion?: string;
}

/** `k8s\0`: protoEncodingPrefix of pkg/runtime/serializer/protobuf/protobuf.go. */
const prefix = [0x6b, 0x38, 0x73, 0x00];

// The tag of a field is (field number << 3) | wire type, wire type 2 = length-delimited, 0 = varint;
// the decoder compares whole tags, written as number literals with their field (the loops below run
// for every field of every object). The field numbers each message reads, to refuse a known field
// sent with another wire type (as Go's generated Unmarshal does):
const unknownFields = new Set([1, 2, 3]); // typeMeta, raw, contentEncoding
const typeMetaFields = new Set([1, 2]); // apiVersion, kind
const listFields = new Set([1, 2]); // metadata, items
const listMetaFields = new Set([2, 3]); // resourceVersion, continue
const itemFields = new Set([1]); // metadata
const objectMetaFields = new Set([1, 3, 5, 8, 9, 11, 12, 13, 14]);
const mapEntryFields = new Set([1, 2]); // key, value
const ownerFields = new Set([1, 3, 4, 5, 6, 7]);
const timeFields = new Set([1]); // seconds

/**
 * Pure (apart from adding to `keep.pool`): decodes one protobuf page of a
 * PartialObjectMetadataList (the format: this file's header) into the items the snapshot keeps,
 * each as `toObjectMetadata(item.metadata, keep.apiVersion, keep.kind, keep.resource, keep.pool)`
 * would build it from the JSON of the same page, and the list's continue token and
 * resourceVersion. Unknown fields are skipped.
 * @throws MalformedPageError when the bytes do not start with `k8s\0`, the envelope is not a
 *   meta.k8s.io/v1 PartialObjectMetadataList (or is encoded), a length runs past the end of its
 *   message, the page is truncated, a wire type is invalid or a known field has the wrong one.
 */
export function decodeMetadataListPage(bytes: Uint8Array, keep: KeepAs): MetadataPage {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < prefix.length || prefix.some((b, i) => buffer[i] !== b))
    throw new MalformedPageError('the answer does not start with the Kubernetes protobuf prefix k8s\\0');
  const reader = protobuf.Reader.create(buffer);
  reader.pos = prefix.length;
  try {
    const raw = readEnvelope(reader);
    reader.pos = raw.start;
    reader.len = raw.end;
    return readList(reader, keep, new Map());
  } catch (error) {
    if (error instanceof MalformedPageError) throw error;
    throw new MalformedPageError(`truncated or malformed at byte ${reader.pos}: ${(error as Error).message}`);
  }
}

/**
 * Enters the length-delimited message at the reader's position: its `len` becomes the message's
 * end, so that nothing inside reads past it.
 * @returns the enclosing message's end, to give back to `leave`.
 * @throws MalformedPageError when the length runs past the enclosing message.
 */
function enter(r: Reader): number {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len)
    throw new MalformedPageError(
      `a length of ${length} bytes at byte ${r.pos} runs past the end of its message (byte ${r.len})`,
    );
  const outer = r.len;
  r.len = end;
  return outer;
}

function leave(r: Reader, outer: number): void {
  r.len = outer;
}

/**
 * Skips a field this decoder does not read, by its wire type (groups too, nested to
 * protobufjs's recursion limit).
 * @throws MalformedPageError when `known` (the message's fields) holds that field number with another wire type.
 */
function skipField(r: Reader, fieldTag: number, known: ReadonlySet<number>): void {
  const field = fieldTag >>> 3;
  if (known.has(field))
    throw new MalformedPageError(
      `field ${field} has wire type ${fieldTag & 7}, not the one its message declares`,
    );
  r.skipType(fieldTag & 7, 0, field);
}

/**
 * Reads the runtime.Unknown envelope to its end and checks that it holds a meta.k8s.io/v1
 * PartialObjectMetadataList, not encoded.
 * @returns where its `raw` bytes (the list) start and end.
 */
function readEnvelope(r: Reader): { start: number; end: number } {
  let apiVersion = '';
  let kind = '';
  let encoding = '';
  let raw: { start: number; end: number } | undefined;
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === 10 /* typeMeta = 1 */) {
      const outer = enter(r);
      while (r.pos < r.len) {
        const u = r.tag();
        if (u === 10 /* apiVersion = 1 */) apiVersion = r.string();
        else if (u === 18 /* kind = 2 */) kind = r.string();
        else skipField(r, u, typeMetaFields);
      }
      leave(r, outer);
    } else if (t === 18 /* raw = 2 */) {
      const outer = enter(r);
      raw = { start: r.pos, end: r.len };
      r.pos = r.len;
      leave(r, outer);
    } else if (t === 26 /* contentEncoding = 3 */) encoding = r.string();
    else skipField(r, t, unknownFields);
  }
  if (apiVersion !== 'meta.k8s.io/v1' || kind !== 'PartialObjectMetadataList')
    throw new MalformedPageError(
      `the answer is a ${kind || '(no kind)'} of ${apiVersion || '(no apiVersion)'}, not a meta.k8s.io/v1 PartialObjectMetadataList`,
    );
  if (encoding)
    throw new MalformedPageError(`the answer's content is encoded (${encoding}), which is not read`);
  if (!raw) throw new MalformedPageError('the answer has no list (runtime.Unknown.raw is missing)');
  return raw;
}

/** Reads the PartialObjectMetadataList in the reader's bounds; `times` caches formatted times of the page. */
function readList(r: Reader, keep: KeepAs, times: Map<number, string>): MetadataPage {
  const items: ObjectMetadata[] = [];
  let resourceVersion = '';
  let token = '';
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === 18 /* items = 2 */) {
      const outer = enter(r);
      const fields: KeptFields = {};
      while (r.pos < r.len) {
        const u = r.tag();
        if (u === 10 /* metadata = 1 */) {
          const inner = enter(r);
          readObjectMeta(r, fields, keep.pool, times);
          leave(r, inner);
        } else skipField(r, u, itemFields);
      }
      leave(r, outer);
      items.push(assembleMetadata(fields, keep.apiVersion, keep.kind, keep.resource));
    } else if (t === 10 /* metadata = 1 */) {
      const outer = enter(r);
      while (r.pos < r.len) {
        const u = r.tag();
        if (u === 18 /* resourceVersion = 2 */) resourceVersion = r.string();
        else if (u === 26 /* continue = 3 */) token = r.string();
        else skipField(r, u, listMetaFields);
      }
      leave(r, outer);
    } else skipField(r, t, listFields);
  }
  return { items, ...(token ? { continue: token } : {}), ...(resourceVersion ? { resourceVersion } : {}) };
}

/**
 * Reads one ObjectMeta into `fields` (in place: a repeated metadata field merges into the same
 * fields, as Go's Unmarshal does; a repeated scalar field's last value wins), keeping what
 * `toObjectMetadata` keeps: the namespace and creation time interned, the maps through keepEntry.
 */
function readObjectMeta(
  r: Reader,
  fields: KeptFields,
  pool: StringPool | undefined,
  times: Map<number, string>,
): void {
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case 10 /* name = 1 */:
        fields.name = r.string();
        break;
      case 26 /* namespace = 3 */:
        fields.namespace = intern(pool, r.string());
        break;
      case 42 /* uid = 5 */:
        fields.uid = r.string();
        break;
      case 66 /* creationTimestamp = 8 */:
        fields.creationTimestamp = intern(pool, readTime(r, times));
        break;
      case 74 /* deletionTimestamp = 9 */:
        fields.deletionTimestamp = readTime(r, times);
        break;
      case 90 /* labels = 11 */:
        fields.labels = readMapEntry(r, fields.labels, pool);
        break;
      case 98 /* annotations = 12 */:
        fields.annotations = readMapEntry(r, fields.annotations, pool);
        break;
      case 106 /* ownerReferences = 13 */:
        ((fields.ownerReferences ??= []) as OwnerReference[]).push(readOwnerReference(r));
        break;
      case 114 /* finalizers = 14 */:
        ((fields.finalizers ??= []) as string[]).push(r.string());
        break;
      default:
        skipField(r, t, objectMetaFields);
    }
  }
}

/**
 * Reads one map<string, string> entry {key=1, value=2} and adds it to `out` through keepEntry
 * (list.ts: dropped annotations, interning, `__proto__`). A missing key or value is '' (as in Go).
 * The value of a dropped annotation is skipped undecoded when its key comes first.
 */
function readMapEntry(
  r: Reader,
  out: Record<string, string> | undefined,
  pool: StringPool | undefined,
): Record<string, string> | undefined {
  const outer = enter(r);
  let key = '';
  let value = '';
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === 10 /* key = 1 */) key = r.string();
    else if (t === 18 /* value = 2 */) {
      if (isDroppedKey(key)) r.skipType(2);
      else value = r.string();
    } else skipField(r, t, mapEntryFields);
  }
  leave(r, outer);
  return keepEntry(out, key, value, pool);
}

/** Reads one OwnerReference with the fields JSON prints, in its order; controller and blockOwnerDeletion only when sent. */
function readOwnerReference(r: Reader): OwnerReference {
  const outer = enter(r);
  const ref: Mutable<OwnerReference> = { apiVersion: '', kind: '', name: '', uid: '' };
  let controller: boolean | undefined;
  let block: boolean | undefined;
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === 42 /* apiVersion = 5 */) ref.apiVersion = r.string();
    else if (t === 10 /* kind = 1 */) ref.kind = r.string();
    else if (t === 26 /* name = 3 */) ref.name = r.string();
    else if (t === 34 /* uid = 4 */) ref.uid = r.string();
    else if (t === 48 /* controller = 6, varint */) controller = r.bool();
    else if (t === 56 /* blockOwnerDeletion = 7, varint */) block = r.bool();
    else skipField(r, t, ownerFields);
  }
  leave(r, outer);
  if (controller !== undefined) ref.controller = controller;
  if (block !== undefined) ref.blockOwnerDeletion = block;
  return ref;
}

/** Unix seconds of Go's zero time (0001-01-01T00:00:00Z), which JSON prints as null. */
const zeroTimeSeconds = -62135596800;

/**
 * Reads one metav1.Time as its JSON prints it: undefined for the zero time (an empty message, or
 * seconds of 0001-01-01T00:00:00Z), else RFC 3339 in UTC in whole seconds (nanos are dropped,
 * as Time.Unmarshal drops them). `times` caches the text of each second.
 * @throws MalformedPageError when the seconds are outside what a JavaScript Date can hold.
 */
function readTime(r: Reader, times: Map<number, string>): string | undefined {
  const outer = enter(r);
  const empty = r.pos === r.len;
  let seconds = 0;
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === 8 /* seconds = 1, varint */) {
      const value = r.int64();
      // A Long when long.js is loaded (signed high and low halves), else a number.
      seconds = typeof value === 'number' ? value : value.high * 2 ** 32 + (value.low >>> 0);
    } else skipField(r, t, timeFields);
  }
  leave(r, outer);
  if (empty || seconds === zeroTimeSeconds) return undefined;
  let text = times.get(seconds);
  if (text === undefined) {
    text = formatTime(seconds);
    times.set(seconds, text);
  }
  return text;
}

/**
 * Pure: Unix `seconds` as Go's `time.Unix(seconds, 0).UTC().Format(time.RFC3339)` prints it:
 * 2026-12-02T06:01:02Z; the year zero-padded to 4 digits, with a minus sign before year 0.
 * @throws MalformedPageError when the time is outside a JavaScript Date's range (±8.64e15 ms).
 */
export function formatTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new MalformedPageError(`a time of ${seconds} s is out of range`);
  const year = date.getUTCFullYear();
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${year < 0 ? '-' : ''}${String(Math.abs(year)).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-` +
    `${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}Z`
  );
}
