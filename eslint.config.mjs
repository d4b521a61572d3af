// Lint rules that catch defects; layout is Prettier's (.prettierrc.json), hence eslint-config-prettier.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      'test-output/',
      '.data/',
      'src/infrastructure/database/driver/generated/',
      'src/infrastructure/persistence/kysely/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    // The few CommonJS files Node and the tools load as they are (configs, the postinstall script).
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@stylistic': stylistic },
    rules: {
      // A promise nobody awaits hides its failure: a test passes while what it started fails after it.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A leading underscore marks what is left out on purpose (an Express error handler's next, a rest's sibling).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Prettier wraps code at 120; strings and comments it leaves alone are held to the same width.
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // Express types res.locals as any record: the service reaches it through localsOf, which types it.
    files: ['src/**/*.ts'],
    ignores: ['src/interfaces/http/answer-locals.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='res'][property.name='locals']",
          message: "Read and write the request's locals through localsOf (answer-locals.ts), which types them.",
        },
      ],
    },
  },
  {
    // A function a reader takes in at once: one that grows past this is split by what it does.
    // Raw lines, blanks and comments counted, as a reader meets them.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
);
