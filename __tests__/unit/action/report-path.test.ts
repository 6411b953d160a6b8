import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { claimDefaultReportPath, defaultReportName } from '../../../src/action/main.js';
import {
  checkReportPath,
  reportHead,
  reportPathCollision,
  reportPathNeighbours,
  unfinishedReportLine,
  writeReport,
} from '../../../src/execute.js';
import { InputError } from '../../../src/config/settings.js';
import type { Report } from '../../../src/report/report.js';
import { inFaceTerms } from '../../../src/report/face.js';
import { writeFileAtomically } from '../../../src/util/atomic-file.js';

test('defaultReportName: the step from GITHUB_ACTION, sanitised and cut; a counter after the first', () => {
  expect(defaultReportName('sweep')).toBe('kube-sweep-report-sweep.json');
  expect(defaultReportName('__self_2')).toBe('kube-sweep-report-__self_2.json');
  expect(defaultReportName('a/b c:../d')).toBe('kube-sweep-report-a_b_c_.._d.json');
  expect(defaultReportName('x'.repeat(100))).toBe(`kube-sweep-report-${'x'.repeat(64)}.json`);
  expect(defaultReportName(undefined)).toBe('kube-sweep-report.json');
  expect(defaultReportName('')).toBe('kube-sweep-report.json');
  expect(defaultReportName('sweep', 2)).toBe('kube-sweep-report-sweep-2.json');
  expect(defaultReportName(undefined, 3)).toBe('kube-sweep-report-3.json');
});

test('claimDefaultReportPath: one RUNNER_TEMP for the job, each claim its own file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-claim-'));
  writeFileSync(join(dir, 'kube-sweep-report-sweep.json'), '{}'); // an earlier step's report
  const env = { RUNNER_TEMP: dir, GITHUB_ACTION: 'sweep' };
  expect(claimDefaultReportPath(env)).toBe(join(dir, 'kube-sweep-report-sweep-2.json'));
  expect(claimDefaultReportPath(env)).toBe(join(dir, 'kube-sweep-report-sweep-3.json'));
  expect(claimDefaultReportPath({ RUNNER_TEMP: dir, GITHUB_ACTION: 'scan' })).toBe(
    join(dir, 'kube-sweep-report-scan.json'),
  );
  expect(readdirSync(dir).sort()).toEqual([
    'kube-sweep-report-scan.json',
    'kube-sweep-report-sweep-2.json',
    'kube-sweep-report-sweep-3.json',
    'kube-sweep-report-sweep.json',
  ]);
  // A folder that cannot be written: the first name, and the write reports the problem later.
  expect(claimDefaultReportPath({ RUNNER_TEMP: '/proc/kube-sweep-none', GITHUB_ACTION: 's' })).toBe(
    '/proc/kube-sweep-none/kube-sweep-report-s.json',
  );
});

test('checkReportPath refuses a file that takes no report, and leaves a line that says the run is unfinished beside the path', () => {
  // A tester's teardown deleted its namespace, then could not write --report-path /proc/self/status
  // (EINVAL) and still said clean: an empty write had passed the check. /proc/self/status is a
  // regular file next to which no file can be created (the report is renamed into place).
  for (const [path, why] of <[string, string][]>[
    ['/proc/self/status', 'no file can be created in its folder: ENOENT'],
    ['/dev/full', 'no space left: ENOSPC'],
  ]) {
    expect(() => checkReportPath(path)).toThrow(InputError);
    expect(() => checkReportPath(path)).toThrow(`'${path}', which cannot be written (${why})`);
  }
  const path = join(mkdtempSync(join(tmpdir(), 'kube-sweep-check-')), 'r.json');
  checkReportPath(path);
  expect(existsSync(path)).toBe(false);
  expect(readFileSync(`${path}.unfinished`, 'utf8')).toBe(unfinishedReportLine);
  expect(JSON.parse(readFileSync(`${path}.unfinished`, 'utf8'))).not.toHaveProperty('verdict');
});

/** The message `fn` throws, in the action's words. */
function thrownInActionWords(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    return inFaceTerms('action', (error as Error).message);
  }
  throw new Error('nothing was thrown');
}

/** A folder with an earlier report `old.json` in it. */
function folderWithReport(): { dir: string; old: string; text: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-collide-'));
  const old = join(dir, 'old.json');
  const text = JSON.stringify(reportOf('clean')) + '\n';
  writeFileSync(old, text);
  return { dir, old, text };
}

function reportOf(verdict: Report['verdict']): Report {
  return { ...reportHead('scan', { server: '', version: '', context: '' }), verdict, warnings: [] };
}

test.each([
  ['the same path', (old: string) => old],
  ['a relative path', (old: string) => relative(process.cwd(), old)],
  [
    'a symbolic link',
    (old: string) => {
      const link = join(dirname(old), 'link.json');
      symlinkSync(old, link);
      return link;
    },
  ],
  [
    'a hard link',
    (old: string) => {
      const link = join(dirname(old), 'hard.json');
      linkSync(old, link);
      return link;
    },
  ],
  [
    'a path through a linked folder',
    (old: string) => {
      const folder = join(dirname(old), 'folder-link');
      symlinkSync(dirname(old), folder);
      return join(folder, 'old.json');
    },
  ],
])(
  'report-path that is the baseline (%s): refused naming both inputs, the baseline untouched',
  (_, given) => {
    const { dir, old, text } = folderWithReport();
    const path = given(old);
    const check = () => checkReportPath(path, { baseline: old });
    expect(check).toThrow(InputError);
    expect(thrownInActionWords(check)).toContain(
      `input 'report-path' is '${path}', the same file as 'baseline' ('${old}'): the report would replace the baseline it is compared against; ` +
        "write the report to another file and give that file as 'baseline' of the next run (nothing was done)",
    );
    expect(readFileSync(old, 'utf8')).toBe(text);
    expect(readdirSync(dir).filter((f) => f.endsWith('.unfinished'))).toEqual([]);
  },
);

test('report-path that a merge glob matches (there already or not yet): refused naming both inputs', () => {
  const { dir, old, text } = folderWithReport();
  for (const [path, globs] of <[string, string[]][]>[
    [old, ['*.json']],
    [join(dir, 'merged.json'), ['*.json']],
    [join(dir, 'sub', 'merged.json'), ['**/*.json']],
    [join(dir, 'merged.json'), [join(dir, '*.json')]],
  ]) {
    expect(thrownInActionWords(() => checkReportPath(path, { mergeGlobs: globs, cwd: dir }))).toContain(
      `input 'report-path' is '${path}', which 'reports' (${globs.join(', ')}) matches: the merge would read its own unfinished report`,
    );
  }
  expect(readFileSync(old, 'utf8')).toBe(text);
  expect(readdirSync(dir).sort()).toEqual(['old.json']);
  // Outside the globs: allowed.
  expect(reportPathCollision(join(dir, 'merged.txt'), { mergeGlobs: ['*.json'], cwd: dir })).toBeUndefined();
  expect(reportPathCollision(join(dir, 'new.json'), { baseline: old, cwd: dir })).toBeUndefined();
});

test('reportPathNeighbours: the baseline always, the reports globs only for mode merge', () => {
  expect(reportPathNeighbours({ baseline: 'b.json', mode: 'merge', reports: ['r/*.json'] }, '/w')).toEqual({
    baseline: 'b.json',
    mergeGlobs: ['r/*.json'],
    cwd: '/w',
  });
  expect(reportPathNeighbours({ baseline: '', mode: 'scan', reports: ['r/*.json'] })).toEqual({
    baseline: '',
    mergeGlobs: [],
  });
});

test('an earlier report stays whole until the new one replaces it in one rename; no sibling is left', () => {
  const { dir, old, text } = folderWithReport();
  checkReportPath(old);
  // Checked (a run started): the earlier report is still there, whole; the marker is beside it.
  expect(readFileSync(old, 'utf8')).toBe(text);
  expect(readFileSync(`${old}.unfinished`, 'utf8')).toBe(unfinishedReportLine);
  writeReport(old, reportOf('leftovers'));
  expect(JSON.parse(readFileSync(old, 'utf8')).verdict).toBe('leftovers');
  expect(readdirSync(dir)).toEqual(['old.json']);
  // Through a symbolic link: the file it points to is replaced, the link stays a link.
  const link = join(dir, 'link.json');
  symlinkSync(old, link);
  writeReport(link, reportOf('partial'));
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(JSON.parse(readFileSync(old, 'utf8')).verdict).toBe('partial');
  expect(readdirSync(dir).sort()).toEqual(['link.json', 'old.json']);
});

test('writeFileAtomically: a write that fails leaves the earlier file and no sibling', () => {
  const { dir, old, text } = folderWithReport();
  // The sibling's name is taken by a folder: the write fails before anything is renamed.
  mkdirSync(`${old}.unfinished`);
  expect(() => writeFileAtomically(old, 'new')).toThrow(/EISDIR/);
  expect(readFileSync(old, 'utf8')).toBe(text);
  rmSync(`${old}.unfinished`, { recursive: true });
  writeFileAtomically(old, 'new');
  expect(readFileSync(old, 'utf8')).toBe('new');
  expect(readdirSync(dir)).toEqual(['old.json']);
  // Not a regular file: written directly (a rename would replace the device).
  expect(() => writeFileAtomically('/dev/full', 'x')).toThrow(/ENOSPC/);
  writeFileAtomically('/dev/null', 'x');
  expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
});
