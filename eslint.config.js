// ESLint flat config (`npm run lint`): typescript-eslint's type-aware rules, kept for the bugs
// they catch (a promise nobody awaits or handles, a promise where a boolean or a void callback is
// expected, an await of what is not a promise, an unused import or local), not for style:
// layout is Prettier's (.prettierrc), so no stylistic rule is on. Rules of the recommended sets
// that only flagged deliberate code here are off below, each with the reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    // built output, installed packages, tool state in dot-folders, and the packed-package
    // fixtures (checked by their own tsc run in test/package)
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.*/**', 'test/package/fixtures/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        // scripts/*.ts are outside tsconfig.json's include (run by tsx, never bundled)
        projectService: { allowDefaultProject: ['scripts/*.ts'], defaultProject: 'tsconfig.json' },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // the bugs this config is for
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `xs[i]!` is how this code marks an index read it knows is in range (1,400 of them); the
      // rule calls them unnecessary only because noUncheckedIndexedAccess is off
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // `any` arrives from JSON.parse, the Temporal protos and test doubles; the boundaries are
      // checked by zod schemas instead (800+ findings, none a bug when sampled)
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // async functions without await implement async interfaces (activities, handlers)
      '@typescript-eslint/require-await': 'off',
      // the evaluator and printer throw sentinels (RECUR, SUSPEND, FULL, SyntaxStop) for control
      // flow, without an Error's stack; catch blocks rethrow what they caught, unknown
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // the functions destructured (`const { client, close } = ...`) are closures typed as
      // methods: no `this` to lose
      '@typescript-eslint/unbound-method': 'off',
      // `${x}` of Long ids and of unknowns in test messages prints what is meant
      '@typescript-eslint/restrict-template-expressions': 'off',
      // String() of console form fields typed `string | File` (Hono's parseBody); a File there
      // would print [object File], not throw: noted for the console, not a crash
      '@typescript-eslint/no-base-to-string': 'off',
      // `'journal_inactive' | string` keeps the known codes visible in editors
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // terminal output and markdown sanitising strip control characters on purpose
      'no-control-regex': 'off',
      // the `l` flag (V8's linear-time engine) is probed on purpose (src/lisp/regex-native.ts)
      'no-invalid-regexp': ['error', { allowConstructorFlags: ['l'] }],
    },
  },
  {
    // tests and benches compare raw protobuf enums with numbers and type test doubles loosely
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      // expected output is matched with its own indentation, spaces as printed
      'no-regex-spaces': 'off',
    },
  },
  {
    // plain JavaScript (bin, scripts, the sandbox boot file, the lazily required tracing
    // modules) is outside the TypeScript project: syntax rules only
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
