/**
 * The protobuf decoder of metadata list pages (src/inventory/protobuf-metadata.ts) against pages
 * encoded here with protobufjs's Writer, field by field as k8s.io/apimachinery's generated.proto
 * numbers them: it must keep exactly what toObjectMetadata keeps of the JSON of the same objects,
 * skip what it does not read, and refuse malformed bytes with MalformedPageError.
 */
import protobuf from 'protobufjs/minimal.js';
import { toObjectMetadata, type RawMetadata, type StringPool } from '../../../src/inventory/list.js';
import {
  decodeMetadataListPage,
  formatTime,
  MalformedPageError,
  type KeepAs,
} from '../../../src/inventory/protobuf-metadata.js';

type Writer = protobuf.Writer;
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
const asConfigMap: KeepAs = { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps' };

// --- encoding, as the API server's generated Marshal writes it ----------------------------------
const str = (w: Writer, field: number, value: string) => w.uint32((field << 3) | 2).string(value);
const varint = (w: Writer, field: number, value: number) => w.uint32(field << 3).int64(value);
function msg(w: Writer, field: number, build: (w: Writer) => void): Writer {
  w.uint32((field << 3) | 2).fork();
  build(w);
  return w.ldelim();
}

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}
/** ObjectMeta's fields; times as Unix seconds (with optional nanos), `null` for an empty (zero) Time. */
interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  created?: [number, number?] | null;
  deleted?: [number, number?] | null;
  labels?: [string, string][];
  annotations?: [string, string][];
  owners?: Owner[];
  finalizers?: string[];
}

function time(w: Writer, field: number, value: [number, number?] | null): void {
  msg(w, field, (t) => {
    if (value === null) return;
    varint(t, 1, value[0]);
    if (value[1] !== undefined) t.uint32(16).int32(value[1]);
  });
}

/** Writes ObjectMeta the way the API server does, with the fields kube-sweep skips mixed in. */
function objectMeta(w: Writer, m: Meta): void {
  if (m.name !== undefined) str(w, 1, m.name);
  str(w, 2, ''); // generateName
  if (m.namespace !== undefined) str(w, 3, m.namespace);
  str(w, 4, ''); // selfLink
  if (m.uid !== undefined) str(w, 5, m.uid);
  str(w, 6, '12345'); // resourceVersion
  varint(w, 7, 3); // generation
  if (m.created !== undefined) time(w, 8, m.created);
  if (m.deleted !== undefined) time(w, 9, m.deleted);
  varint(w, 10, 30); // deletionGracePeriodSeconds
  for (const [k, v] of m.labels ?? []) msg(w, 11, (e) => str(str(e, 1, k), 2, v));
  for (const [k, v] of m.annotations ?? []) msg(w, 12, (e) => str(str(e, 1, k), 2, v));
  for (const o of m.owners ?? [])
    msg(w, 13, (r) => {
      str(r, 1, o.kind);
      str(r, 3, o.name);
      str(r, 4, o.uid);
      str(r, 5, o.apiVersion);
      if (o.controller !== undefined) r.uint32(48).bool(o.controller);
      if (o.blockOwnerDeletion !== undefined) r.uint32(56).bool(o.blockOwnerDeletion);
    });
  for (const f of m.finalizers ?? []) str(w, 14, f);
  // managedFields: a ManagedFieldsEntry with a time and a FieldsV1 blob, never built.
  msg(w, 17, (e) => {
    str(e, 1, 'kubectl');
    time(e, 4, [1_700_000_000]);
    msg(e, 7, (f) => f.uint32(10).bytes(Buffer.from('{"f:data":{".":{}}}')));
  });
}

/** The JSON the API server prints for the same ObjectMeta (what toObjectMetadata reads). */
function jsonOf(m: Meta): RawMetadata {
  const iso = (t: [number, number?] | null | undefined) =>
    t ? new Date(t[0] * 1000).toISOString().replace('.000Z', 'Z') : undefined;
  const out: RawMetadata & Record<string, unknown> = { resourceVersion: '12345', generation: 3 };
  if (m.name) out.name = m.name;
  if (m.namespace) out.namespace = m.namespace;
  if (m.uid) out.uid = m.uid;
  if (iso(m.created)) out.creationTimestamp = iso(m.created)!;
  if (iso(m.deleted)) out.deletionTimestamp = iso(m.deleted)!;
  if (m.labels) out.labels = Object.fromEntries(m.labels);
  if (m.annotations) out.annotations = Object.fromEntries(m.annotations);
  if (m.owners) out.ownerReferences = m.owners;
  if (m.finalizers) out.finalizers = m.finalizers;
  out.managedFields = [{ manager: 'kubectl', fieldsV1: { 'f:data': { '.': {} } } }];
  return out;
}

interface PageOptions {
  apiVersion?: string;
  kind?: string;
  contentEncoding?: string;
  /** Leave out runtime.Unknown.raw. */
  noRaw?: boolean;
  /** Leave out the empty contentEncoding and contentType the server writes after raw. */
  noTrailer?: boolean;
}

/** The `k8s\0` envelope around a PartialObjectMetadataList whose fields `list` writes. */
function envelope(list: (w: Writer) => void, options: PageOptions = {}): Buffer {
  const raw = protobuf.Writer.create();
  list(raw);
  const w = protobuf.Writer.create();
  msg(w, 1, (t) => {
    str(t, 1, options.apiVersion ?? 'meta.k8s.io/v1');
    str(t, 2, options.kind ?? 'PartialObjectMetadataList');
  });
  if (!options.noRaw) w.uint32(18).bytes(raw.finish());
  if (!options.noTrailer) {
    str(w, 3, options.contentEncoding ?? '');
    str(w, 4, '');
  }
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), w.finish()]);
}

/** A page of `items` with the ListMeta the server writes (selfLink, resourceVersion, continue, remainingItemCount). */
function page(items: Meta[], token = '', options: PageOptions = {}): Buffer {
  return envelope((w) => {
    msg(w, 1, (l) => {
      str(l, 1, '');
      str(l, 2, '4711');
      str(l, 3, token);
      if (token) varint(l, 4, 17);
    });
    for (const item of items) msg(w, 2, (i) => msg(i, 1, (m) => objectMeta(m, item)));
  }, options);
}

const full: Meta = {
  name: 'cm',
  namespace: 'team-a',
  uid: 'u-1',
  created: [1_796_191_262, 123_000_000], // 2026-12-02T06:01:02Z, nanos dropped
  deleted: [1_796_191_263],
  labels: [
    ['app.kubernetes.io/name', 'web'],
    ['tier', 'front'],
  ],
  annotations: [
    ['10', 'numeric key'],
    [lastApplied, '{"big":"json"}'],
    ['a', '1'],
    ['b', 'x'.repeat(100)],
  ],
  owners: [
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'rs',
      uid: 'u-rs',
      controller: true,
      blockOwnerDeletion: false,
    },
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: 'u-p' },
  ],
  finalizers: ['example.com/hold', 'kubernetes.io/pvc-protection'],
};

function expectMalformed(bytes: Uint8Array, message: RegExp): void {
  let thrown: unknown;
  try {
    decodeMetadataListPage(bytes, asConfigMap);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(MalformedPageError);
  expect((thrown as Error).message).toMatch(message);
}

test('a page keeps exactly what toObjectMetadata keeps of the JSON of the same objects, in the same order', () => {
  const metas: Meta[] = [
    full,
    { name: 'bare', uid: 'u-2' },
    { name: 'only-last-applied', uid: 'u-3', namespace: 'team-a', annotations: [[lastApplied, '{}']] },
    { name: 'cluster-scoped', uid: 'u-4', created: [0] },
  ];
  const jsonPool: StringPool = new Map();
  const protobufPool: StringPool = new Map();
  const decoded = decodeMetadataListPage(page(metas, 'next-token'), { ...asConfigMap, pool: protobufPool });
  const fromJson = metas.map((m) => toObjectMetadata(jsonOf(m), 'v1', 'ConfigMap', 'configmaps', jsonPool));
  expect(JSON.stringify(decoded.items)).toBe(JSON.stringify(fromJson));
  expect(decoded.items).toEqual(fromJson);
  expect(decoded.continue).toBe('next-token');
  expect(decoded.resourceVersion).toBe('4711');
  // The same strings are interned: namespace, creation times, short label and annotation values.
  expect([...protobufPool.keys()].sort()).toEqual([...jsonPool.keys()].sort());
  expect(protobufPool.has('team-a') && protobufPool.has('web')).toBe(true);
  expect(protobufPool.has('x'.repeat(100))).toBe(false);
});

test('every field lands where the JSON has it (distinct values per field)', () => {
  const [item] = decodeMetadataListPage(page([full]), asConfigMap).items;
  expect(item).toEqual({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    resource: 'configmaps',
    name: 'cm',
    uid: 'u-1',
    namespace: 'team-a',
    creationTimestamp: '2026-12-02T06:01:02Z',
    deletionTimestamp: '2026-12-02T06:01:03Z',
    finalizers: ['example.com/hold', 'kubernetes.io/pvc-protection'],
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'rs',
        uid: 'u-rs',
        controller: true,
        blockOwnerDeletion: false,
      },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: 'u-p' },
    ],
    labels: { 'app.kubernetes.io/name': 'web', tier: 'front' },
    annotations: { '10': 'numeric key', a: '1', b: 'x'.repeat(100) },
  });
  // controller and blockOwnerDeletion only when sent, as JSON's omitempty pointers.
  expect(Object.keys(item!.ownerReferences![1]!)).toEqual(['apiVersion', 'kind', 'name', 'uid']);
});

test('the last page has no continue token; an empty list has no items', () => {
  const last = decodeMetadataListPage(page([{ name: 'a', uid: 'u' }]), asConfigMap);
  expect(last.continue).toBeUndefined();
  expect('continue' in last).toBe(false);
  expect(decodeMetadataListPage(page([]), asConfigMap)).toEqual({ items: [], resourceVersion: '4711' });
});

test('times print as metav1.Time MarshalJSON does: the zero time is absent, nanos are dropped', () => {
  const times = (created: Meta['created']) =>
    decodeMetadataListPage(page([{ name: 'n', uid: 'u', created }]), asConfigMap).items[0]!.creationTimestamp;
  expect(times(null)).toBeUndefined(); // an empty Time is the zero time: JSON null
  expect(times([-62135596800])).toBeUndefined(); // 0001-01-01T00:00:00Z is the zero time too
  expect(times([-62135596800, 5])).toBeUndefined(); // nanos are dropped before IsZero
  expect(times([0])).toBe('1970-01-01T00:00:00Z');
  expect(times([1_796_191_262, 999_999_999])).toBe('2026-12-02T06:01:02Z');
  expect(formatTime(-62135596801)).toBe('0000-12-31T23:59:59Z');
  expect(formatTime(-62198755200)).toBe('-0001-01-01T00:00:00Z');
  expect(formatTime(-59011459200)).toBe('0100-01-01T00:00:00Z');
  expect(formatTime(253402300800)).toBe('10000-01-01T00:00:00Z');
  expectMalformed(
    page([{ name: 'n', uid: 'u', created: [9e15] }]),
    /time of 9000000000000000 s is out of range/,
  );
});

test('labels and annotations: __proto__ stays an own key, last-applied is dropped, a missing key or value is empty', () => {
  const items = decodeMetadataListPage(
    envelope((w) =>
      msg(w, 2, (i) =>
        msg(i, 1, (m) => {
          str(m, 1, 'n');
          msg(m, 11, (e) => str(str(e, 1, '__proto__'), 2, 'polluted'));
          msg(m, 11, (e) => str(e, 2, 'no key'));
          msg(m, 12, (e) => str(e, 1, 'no-value'));
          // Value before key, and a last-applied label (keptMap drops it from labels too).
          msg(m, 11, (e) => str(str(e, 2, 'v'), 1, 'k'));
          msg(m, 11, (e) => str(str(e, 1, lastApplied), 2, '{}'));
        }),
      ),
    ),
    asConfigMap,
  ).items;
  const labels = items[0]!.labels!;
  expect(Object.keys(labels)).toEqual(['__proto__', '', 'k']);
  expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  expect(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value).toBe('polluted');
  expect(labels['']).toBe('no key');
  expect(items[0]!.annotations).toEqual({ 'no-value': '' });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('a repeated metadata field merges, its last name wins; unknown fields of any wire type are skipped', () => {
  const bytes = envelope((w) => {
    w.uint32((99 << 3) | 5).fixed32(7); // unknown fields in the list itself
    w.uint32((98 << 3) | 1).fixed64(7);
    w.uint32((97 << 3) | 3); // a group holding a varint and a nested group
    w.uint32((1 << 3) | 0).uint32(1);
    w.uint32((2 << 3) | 3).uint32((2 << 3) | 4);
    w.uint32((97 << 3) | 4);
    msg(w, 2, (i) => {
      msg(i, 1, (m) => objectMeta(m, { name: 'first', uid: 'u', labels: [['a', '1']] }));
      str(i, 5, 'unknown field of PartialObjectMetadata');
      msg(i, 1, (m) => objectMeta(m, { name: 'second', labels: [['b', '2']], finalizers: ['f'] }));
    });
  });
  expect(decodeMetadataListPage(bytes, asConfigMap).items).toEqual([
    {
      ...asConfigMap,
      name: 'second',
      uid: 'u',
      finalizers: ['f'],
      labels: { a: '1', b: '2' },
    },
  ]);
});

test('takes a Uint8Array as well as a Buffer', () => {
  const bytes = page([{ name: 'n', uid: 'u' }]);
  const copy = new Uint8Array(bytes.length + 3).subarray(3);
  copy.set(bytes);
  expect(decodeMetadataListPage(copy, asConfigMap).items[0]!.name).toBe('n');
});

test('a page that is not this format is refused with a message saying what it is', () => {
  expectMalformed(
    Buffer.from('{"kind":"PartialObjectMetadataList"}'),
    /does not start with the Kubernetes protobuf prefix/,
  );
  expectMalformed(Buffer.from('k8s'), /does not start with the Kubernetes protobuf prefix/);
  expectMalformed(
    page([], '', { kind: 'ConfigMapList', apiVersion: 'v1' }),
    /a ConfigMapList of v1, not a meta\.k8s\.io\/v1 PartialObjectMetadataList/,
  );
  expectMalformed(
    page([], '', { apiVersion: 'meta.k8s.io/v1beta1' }),
    /not a meta\.k8s\.io\/v1 PartialObjectMetadataList/,
  );
  expectMalformed(page([], '', { contentEncoding: 'gzip' }), /encoded \(gzip\)/);
  expectMalformed(page([], '', { noRaw: true }), /no list \(runtime\.Unknown\.raw is missing\)/);
  expectMalformed(Buffer.from('k8s\0', 'latin1'), /not a meta\.k8s\.io\/v1 PartialObjectMetadataList/);
});

test('every truncation of a page is refused, never read as a shorter page', () => {
  const bytes = page([full, { name: 'b', uid: 'u-b' }], 'token', { noTrailer: true });
  for (let cut = 0; cut < bytes.length; cut++) expectMalformed(bytes.subarray(0, cut), /./);
});

test('a length past the end of its message, an invalid wire type, a known field with the wrong wire type: refused', () => {
  // ObjectMeta claims 200 bytes inside an item of a few: past its message, though within the page.
  const pastEnd = envelope((w) => {
    msg(w, 2, (i) => i.uint32(10).uint32(200).uint32(10).uint32(1).uint32(0x61));
    str(w, 99, 'x'.repeat(300));
  });
  expectMalformed(pastEnd, /a length of 200 bytes at byte \d+ runs past the end of its message/);
  const name = (build: (m: Writer) => void) => envelope((w) => msg(w, 2, (i) => msg(i, 1, build)));
  expectMalformed(
    name((m) => m.uint32((20 << 3) | 6)),
    /invalid wire type 6/,
  );
  expectMalformed(
    name((m) => m.uint32((20 << 3) | 7)),
    /invalid wire type 7/,
  );
  expectMalformed(
    name((m) => m.uint32((20 << 3) | 4)),
    /invalid wire type 4/,
  ); // a stray end of group
  expectMalformed(
    name((m) => m.uint32(0).uint32(1)),
    /field number 0|invalid/,
  );
  expectMalformed(
    name((m) => varint(m, 1, 5)),
    /field 1 has wire type 0/,
  ); // name as a varint
  expectMalformed(
    name((m) => str(m, 8, 'not a message at all!')),
    /./,
  ); // a Time that is text
  expectMalformed(
    name((m) => msg(m, 13, (r) => str(r, 6, 'yes'))),
    /field 6 has wire type 2/, // controller as a string
  );
  // A string field running past the end of its map entry (the entry's len bounds the reader).
  expectMalformed(
    name((m) => m.uint32(90).uint32(3).uint32(10).uint32(5).uint32(0x61)),
    /index out of range|past/,
  );
});
