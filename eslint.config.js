import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import docCommentPlacement from './eslint-rules/doc-comment-placement.js';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'bench/results/'] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Lines a reader takes in without scrolling; URLs and long string literals excepted.
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { local: { rules: { 'doc-comment-placement': docCommentPlacement } } },
    rules: { 'local/doc-comment-placement': 'error' },
  },
  {
    // CommonJS configuration files (.dependency-cruiser.cjs), run by Node. The package `globals` is not installed: name the two used.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
