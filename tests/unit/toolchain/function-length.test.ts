// No function in src longer than a reader takes in at once (80 lines, counted raw): held by ESLint,
// which `npm test` runs, so that it stays true as the code grows.
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.join(__dirname, '../../..');

describe('max-lines-per-function', () => {
  it.each(['src/server.ts', 'src/interfaces/http/answer-locals.ts', 'src/core/domain/errors.ts'])(
    'holds %s to 80 raw lines a function',
    async (file) => {
      const config: { rules?: Record<string, unknown> } = await new ESLint({ cwd: root }).calculateConfigForFile(
        path.join(root, file),
      );
      expect(config.rules?.['max-lines-per-function']).toEqual([
        2,
        { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true },
      ]);
    },
  );
});
