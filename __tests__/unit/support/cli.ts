import { main } from '../../../src/cli/index.js';

/** Runs the CLI's main in this process: its exit code and what it wrote on stdout and stderr. */
export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    args,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}
