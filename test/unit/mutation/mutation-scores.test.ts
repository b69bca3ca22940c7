import { describe, expect, it } from 'vitest';
import {
  belowFloor,
  mutationScores,
  MutationReportError,
  parseMutationReport,
} from '../../mutation/mutation-scores.ts';

const mutants = (...statuses: string[]) =>
  statuses.map((status, i) => ({ id: String(i), status, mutatorName: 'x', location: {} }));
const report = (files: Record<string, string[]>) =>
  JSON.stringify({
    schemaVersion: '2',
    thresholds: { high: 100, low: 95 },
    files: Object.fromEntries(
      Object.entries(files).map(([f, s]) => [f, { language: 'typescript', source: '', mutants: mutants(...s) }]),
    ),
  });

describe('mutationScores()', () => {
  it('scores each file as detected / (detected + survived + no coverage), like Stryker', () => {
    const scores = mutationScores(
      parseMutationReport(
        report({ 'b.ts': ['Killed', 'Timeout', 'Survived', 'NoCoverage'], 'a.ts': ['Killed'] }),
        'r.json',
      ),
    );
    expect(scores).toEqual([
      { file: 'a.ts', killed: 1, timeout: 0, survived: 0, noCoverage: 0, excluded: 0, score: 100 },
      { file: 'b.ts', killed: 1, timeout: 1, survived: 1, noCoverage: 1, excluded: 0, score: 50 },
    ]);
  });

  it('does not count mutants disabled by a comment, nor compile or runtime errors', () => {
    const [score] = mutationScores(
      parseMutationReport(
        report({ 'a.ts': ['Killed', 'Ignored', 'CompileError', 'RuntimeError', 'Survived'] }),
        'r.json',
      ),
    );
    expect(score).toMatchObject({ excluded: 3, score: 50 });
  });

  it('a file whose every mutant is ignored scores 100', () => {
    expect(mutationScores(parseMutationReport(report({ 'a.ts': ['Ignored'] }), 'r.json'))[0]?.score).toBe(100);
  });

  it('belowFloor() names the files under the floor, a file exactly at it passes', () => {
    const scores = mutationScores(
      parseMutationReport(
        report({
          'a.ts': [...Array(19).fill('Killed'), 'Survived'],
          'b.ts': [...Array(18).fill('Killed'), 'Survived', 'Survived'],
        }),
        'r.json',
      ),
    );
    expect(scores.map((s) => s.score)).toEqual([95, 90]);
    expect(belowFloor(scores, 95).map((s) => s.file)).toEqual(['b.ts']);
  });
});

describe('parseMutationReport()', () => {
  it('names the file, the field and the value of a bad report', () => {
    expect(() =>
      parseMutationReport(
        JSON.stringify({ files: { 'a.ts': { mutants: [{ id: '1', status: 'Dead' }] } } }),
        'reports/mutation/mutation.json',
      ),
    ).toThrow(/reports\/mutation\/mutation\.json: files\.a\.ts\.mutants\[0\]\.status: .*\(value "Dead"\)/);
    expect(() => parseMutationReport('{', 'r.json')).toThrow(MutationReportError);
    expect(() => parseMutationReport('{}', 'r.json')).toThrow(/r\.json: files: is required/);
  });
});
