import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'openapi/', 'drizzle/', 'coverage/', 'sdk/dist/',
    // Generated from the OpenAPI document by npm run openapi.
    'sdk/src/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      // House style (STYLE.md §24): short functions, 100-column lines.
      'max-lines-per-function': ['error', { max: 70, skipBlankLines: true, skipComments: true }],
      'max-len': ['error', { code: 100, ignoreUrls: true }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Type-aware checks: a promise nobody awaits or handles, a promise where a plain value is
    // expected (an async callback of an event emitter), a switch that misses a member of a union.
    files: ['**/*.ts', '**/*.tsx'],
    // The dashboard's browser script is left to its own change.
    ignores: ['src/dashboard/client/**'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error',
        { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // Business time comes from the injected clock (`Outside.now`, src/platform/outside.ts), so
    // tests move it instead of waiting. A mechanism timed against another clock (the database's,
    // Redis's, a file's) says so where it reads the system's.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/platform/outside.ts', 'src/dashboard/client/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'NewExpression[callee.name="Date"][arguments.length=0]',
          message: 'Read the time from the injected clock (Outside.now), not new Date().' },
        { selector: 'CallExpression[callee.object.name="Date"][callee.property.name="now"]',
          message: 'Read the time from the injected clock (Outside.now), not Date.now().' }],
    },
  },
  {
    // The dashboard's dictionaries: one text per line, whole, so it can be found by searching.
    files: ['src/dashboard/i18n/**/*.ts'],
    rules: { 'max-len': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
);
