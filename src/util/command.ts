import { execa } from 'execa';
import which from 'which';

/** Result of one external command. `exitCode` is non-zero on failure (never thrown). */
export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** True when `signal` stopped it (SIGTERM), or it was never started because the run was cancelled. */
  readonly cancelled?: boolean;
  /** True when `timeoutMs` ran out and it was killed (exit code 124 when it gave none). */
  readonly timedOut?: boolean;
}

/** Options of one `CommandRunner.run`. */
export interface RunOptions {
  readonly timeoutMs?: number;
  readonly input?: string;
  readonly signal?: AbortSignal;
  /** Variables set for the command on top of this process's environment (e.g. `HELM_DRIVER`). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The port for external tools (kind, helm, docker). Tests and the CLI use `execaRunner`;
 * everything else takes a `CommandRunner`.
 */
export interface CommandRunner {
  /**
   * Runs `file` with `args` (no shell). `timeoutMs` kills it after that many ms; `signal`
   * stops it with SIGTERM when aborted (SIGKILL 2 s later if it is still there); `env` sets
   * these variables on top of this process's environment (which it overrides).
   */
  run(file: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
  /** Absolute path of `file` on PATH, or undefined. */
  find(file: string): Promise<string | undefined>;
}

export const execaRunner: CommandRunner = {
  async run(file, args, options = {}) {
    const result = await execa(file, args, {
      reject: false,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.signal ? { cancelSignal: options.signal, forceKillAfterDelay: 2000 } : {}),
      // execa extends process.env with these (extendEnv defaults to true).
      ...(options.env ? { env: options.env } : {}),
      stripFinalNewline: false,
    });
    return {
      exitCode: result.exitCode ?? (result.isCanceled ? 143 : result.timedOut ? 124 : 1),
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      ...(result.isCanceled ? { cancelled: true } : {}),
      ...(result.timedOut ? { timedOut: true } : {}),
    };
  },
  async find(file) {
    return (await which(file, { nothrow: true })) ?? undefined;
  },
};

/**
 * A runner that stops starting commands once `cancel.signal` is aborted (they return exit
 * code 130 with `cancelled: true` and say why on stderr, without running), and stops the ones
 * running with SIGTERM when `cancel.stopProcesses` is aborted (`run`'s `signal`). Lets a
 * cancelled run end its helm processes cleanly instead of dying under them.
 * @param onStopped told each command that the stop signal ended (file, args and the `env` it was given).
 */
export function cancellableRunner(
  runner: CommandRunner,
  cancel: { readonly signal: AbortSignal; readonly stopProcesses: AbortSignal },
  onStopped: (file: string, args: readonly string[], env?: RunOptions['env']) => void = () => {},
): CommandRunner {
  return {
    async run(file, args, options = {}) {
      if (cancel.signal.aborted) {
        const why = (cancel.signal.reason as Error | undefined)?.message ?? 'kube-sweep was cancelled';
        return { exitCode: 130, stdout: '', stderr: `${why}\n`, cancelled: true };
      }
      const signal = options.signal
        ? AbortSignal.any([options.signal, cancel.stopProcesses])
        : cancel.stopProcesses;
      const result = await runner.run(file, args, { ...options, signal });
      if (result.cancelled) onStopped(file, args, options.env);
      return result;
    },
    find: (file) => runner.find(file),
  };
}
