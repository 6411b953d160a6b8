/**
 * The plan's manifests (issue 26): parses the rendered manifest of `test/charts/bulk` (100
 * objects, as a release record holds it) 12 times per run, once with kube-sweep's reader
 * (src/helm/manifest.ts `yamlDocuments`: js-yaml, the reference when js-yaml refuses) and once
 * with the reference alone (`yamlDocumentsByReference`: the `yaml` package's document API, what
 * kube-sweep used before), interleaved, and prints each run and the medians. A plan reads each
 * release's manifest twice (record validation, then the plan's own facts). It prints figures;
 * it is not a test.
 *
 *   node --experimental-transform-types --disable-warning=ExperimentalWarning --import ./bench/ts-hooks.mjs \
 *     bench/manifest-parse.ts --helm <path to helm> [--runs 7]
 */
import { execa } from 'execa';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { yamlDocuments, yamlDocumentsByReference, type YamlDocuments } from '../src/helm/manifest.js';

const { values } = parseArgs({
  options: { helm: { type: 'string', default: 'helm' }, runs: { type: 'string', default: '7' } },
});
const chart = join(import.meta.dirname, '..', 'test', 'charts', 'bulk');
const manifest = (await execa(values.helm, ['template', 'r', chart])).stdout;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (read: (text: string) => YamlDocuments) => {
  const started = performance.now();
  let documents = 0;
  for (let i = 0; i < 12; i++) {
    const r = read(manifest);
    if ('invalid' in r) throw new Error(`the bulk chart's manifest did not parse: ${r.invalid.message}`);
    documents += r.documents.length;
  }
  return { ms: performance.now() - started, documents };
};
const fast: number[] = [];
const reference: number[] = [];
for (let run = 0; run <= Number(values.runs); run++) {
  const a = time(yamlDocuments);
  const b = time(yamlDocumentsByReference);
  // Run 0 warms the code: not counted.
  if (run > 0) {
    fast.push(a.ms);
    reference.push(b.ms);
  }
  console.log(
    `${run === 0 ? 'warm-up' : `run ${run}`}: 12 manifests (${manifest.length} bytes, ${a.documents} documents): ` +
      `kube-sweep ${a.ms.toFixed(1)} ms, reference ${b.ms.toFixed(1)} ms, load ${loadavg()[0]!.toFixed(1)}`,
  );
}
const [f, r] = [median(fast), median(reference)];
console.log(
  `medians: kube-sweep ${f.toFixed(1)} ms, reference ${r.toFixed(1)} ms, reference / kube-sweep ${(r / f).toFixed(1)}`,
);
