/*
 * The report's `github` section as data: what publishing did (publish.ts writes it, report.ts
 * holds it), in a module of its own so that the report model does not import the publisher.
 */

/**
 * What became of one publication. `skipped`: not applicable (a PR comment outside a pull
 * request event); `forbidden`: GitHub answered 403 (the token lacks a permission);
 * `failed`: any other error. Never changes the verdict of the sweep.
 */
export interface Publication {
  readonly status: 'created' | 'updated' | 'skipped' | 'forbidden' | 'failed';
  /** The comment's or check run's page. */
  readonly url?: string;
  /** Why it was skipped or failed (GitHub's status and message; never the token). */
  readonly message?: string;
}

/** The report's `github` section: one entry per publication that was asked for. */
export interface GitHubPublications {
  readonly prComment?: Publication;
  readonly checkRun?: Publication;
}
