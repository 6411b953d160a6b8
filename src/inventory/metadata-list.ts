import type { ApiClient } from '../cluster/api-client.js';
import {
  collectionPath,
  metadataListAccept,
  pageThrough,
  toObjectMetadata,
  type RawMetadata,
} from './list.js';
import {
  decodeMetadataListPage,
  MalformedPageError,
  protobufMediaType,
  type KeepAs,
  type MetadataPage,
} from './protobuf-metadata.js';
import type { GroupVersionResource, ObjectMetadata } from './types.js';

/**
 * Accept header of the inventory's metadata lists: metav1.PartialObjectMetadataList as protobuf,
 * else as JSON, else plain JSON (a server that cannot build a PartialObjectMetadataList answers
 * the resource's own list; an aggregated API may answer JSON only). The syntax is client-go's
 * metadata client's (k8s.io/client-go/metadata), with a quality on the last entry.
 */
export const metadataListAcceptProtobuf =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,' +
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9';

/** How a metadata list asks for its pages: protobuf preferred (the default), or JSON only. */
export type MetadataFormat = 'protobuf' | 'json';

export interface MetadataListOptions {
  /** `limit` of one page. */
  readonly pageSize: number;
  /** List only this namespace (default: across all namespaces). */
  readonly namespace?: string;
  /** The apiVersion, kind and resource each object gets, and the inventory's StringPool. */
  readonly keep: KeepAs;
  /** 'json' asks JSON only (list.ts metadataListAccept); default 'protobuf' (JSON still accepted). */
  readonly format?: MetadataFormat;
  /** Called for every object, as the snapshot keeps it (toObjectMetadata). */
  readonly onObject: (meta: ObjectMetadata) => void;
}

/** What one metadata list read. */
export interface MetadataListResult {
  readonly pages: number;
  /** How many of the pages the server sent as protobuf (the others were JSON). */
  readonly protobufPages: number;
  /**
   * Time in ms turning the pages into ObjectMetadata: decoding protobuf pages, or toObjectMetadata
   * over JSON ones (JSON.parse itself not included); `onObject` not included.
   */
  readonly keepMs: number;
}

/**
 * Lists one resource's metadata across all namespaces (or in `options.namespace`), page by page
 * (`limit` + `continue`; an expired token restarts the list once: list.ts pageThrough), asking for
 * protobuf (metadataListAcceptProtobuf) unless `options.format` is 'json'. Each page is read by the
 * Content-Type the server answered with: protobuf through protobuf-metadata.ts, anything else as
 * JSON through toObjectMetadata. A page's objects are handed to `onObject` only once the whole page
 * decoded.
 * @throws KubernetesApiError (403 Forbidden and others) from the API; MalformedPageError for a
 *   protobuf page that cannot be decoded, SyntaxError for a JSON one that is not JSON: the caller
 *   records coverage (the list failed).
 */
export async function listMetadata(
  api: ApiClient,
  gvr: GroupVersionResource,
  options: MetadataListOptions,
): Promise<MetadataListResult> {
  const path = collectionPath(gvr, options.namespace);
  const accept = options.format === 'json' ? metadataListAccept : metadataListAcceptProtobuf;
  const { keep } = options;
  let protobufPages = 0;
  let keepMs = 0;
  const pages = await pageThrough(async (token) => {
    const answer = await api.requestBytes({
      path,
      query: { limit: options.pageSize, continue: token },
      accept,
    });
    if (answer.contentType.trim().toLowerCase().startsWith(protobufMediaType)) {
      const started = performance.now();
      const page = decodePage(answer.body, keep, path);
      keepMs += performance.now() - started;
      protobufPages++;
      for (const meta of page.items) options.onObject(meta);
      return page.continue;
    }
    const page = JSON.parse(textDecoder.decode(answer.body)) as JsonPage;
    const started = performance.now();
    const items = (page.items ?? []).map((item) =>
      toObjectMetadata(item.metadata ?? {}, keep.apiVersion, keep.kind, keep.resource, keep.pool),
    );
    keepMs += performance.now() - started;
    for (const meta of items) options.onObject(meta);
    return page.metadata?.continue || undefined;
  });
  return { pages, protobufPages, keepMs };
}

/**
 * decodeMetadataListPage with the list's path in its error.
 * @throws MalformedPageError naming `path`: which list's page the API server sent malformed.
 */
function decodePage(body: Buffer, keep: KeepAs, path: string): MetadataPage {
  try {
    return decodeMetadataListPage(body, keep);
  } catch (error) {
    if (!(error instanceof MalformedPageError)) throw error;
    throw new MalformedPageError(
      `the protobuf page of ${path} (${body.length} bytes) cannot be read: ${error.message}`,
    );
  }
}

/** UTF-8, a byte order mark dropped (as undici's `text()` of the JSON path does). */
const textDecoder = new TextDecoder();

interface JsonPage {
  metadata?: { continue?: string };
  items?: { metadata?: RawMetadata }[];
}
