// Types of build-info.mjs, for the tests that import it (__tests__/unit/scripts/build-info.test.ts).

/** What a build is stamped with: package.json's version and the commit (see build-info.mjs). */
export interface BuildInfo {
  readonly version: string;
  /** 40 hex digits, `<40 hex digits>+dirty`, or `unknown`. */
  readonly commit: string;
}
export function buildInfo(root: string): BuildInfo;
export function hasPlaceholders(code: string): boolean;
export function stamp(code: string, info: BuildInfo): string;
export function maskCommit(code: string): string;
export function restamp(code: string, info: BuildInfo): { code: string; count: number };
