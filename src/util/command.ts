import { execa } from 'execa';
import which from 'which';

/** Result of one external command. `exitCode` is non-zero on failure (never thrown). */
export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The port for external tools (kind, helm, docker). Tests and the CLI use `execaRunner`;
 * everything else takes a `CommandRunner`.
 */
export interface CommandRunner {
  /** Runs `file` with `args` (no shell). `timeoutMs` kills it after that many ms. */
  run(
    file: string,
    args: readonly string[],
    options?: { timeoutMs?: number; input?: string },
  ): Promise<CommandResult>;
  /** Absolute path of `file` on PATH, or undefined. */
  find(file: string): Promise<string | undefined>;
}

export const execaRunner: CommandRunner = {
  async run(file, args, options = {}) {
    const result = await execa(file, args, {
      reject: false,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
      stripFinalNewline: false,
    });
    return {
      exitCode: result.exitCode ?? (result.timedOut ? 124 : 1),
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
    };
  },
  async find(file) {
    return (await which(file, { nothrow: true })) ?? undefined;
  },
};
