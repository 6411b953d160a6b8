import { relative } from 'node:path';

/**
 * A jest reporter that prints a line when a test file starts, with the time since the run began
 * (seconds). Jest's default reporter names a file only when it ends, so a file that never ends (a
 * synchronous loop no test timeout can interrupt) left CI with no name to go on. `.ci/run` adds it
 * beside the default reporter.
 */
export default class FileStartReporter {
  started = Date.now();

  /** @param {{ path: string }} test */
  onTestFileStart(test) {
    const seconds = Math.round((Date.now() - this.started) / 1000);
    process.stderr.write(`[jest +${seconds}s] start ${relative(process.cwd(), test.path)}\n`);
  }
}
