// ESLint for the whole repository (`npm run lint`, run by `npm test`): Effect's own rule set (the
// Effect-TS/effect v3 line's eslint.config.mjs), with @effect/eslint-plugin's dprint rule as the
// formatter. dprint also sorts the import declarations and the names inside each, so, as in
// Effect's config, no separate import-sorting rule runs. As there, no rule needs type information:
// `tsc -b` checks the types, and the whole tree lints in about 20 s of one core (typescript-eslint's
// type-checked rules took about 3 minutes on this 2-core machine).
import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import importPlugin from "eslint-plugin-import"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import { defineConfig, globalIgnores } from "eslint/config"
import globals from "globals"
import tseslint from "typescript-eslint"

export default defineConfig(
  // build output and what the tests, the bench and a local server leave behind (.gitignore)
  globalIgnores(["**/dist/", "**/build/", "**/coverage/", "**/.bench/", "**/data/"]),
  js.configs.recommended,
  tseslint.configs.recommended,
  effectEslint.configs.dprint,
  {
    plugins: {
      import: importPlugin,
      "sort-destructure-keys": sortDestructureKeys
    },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      // Sendline's text rules and tests match control characters on purpose (NUL, C0/C1, the
      // terminal's colour codes), never by accident
      "no-control-regex": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "sort-imports": "off",
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
        message: "Do not use spread arguments in Array.push"
      }],
      "no-unused-vars": "off",
      // Effect.gen bodies need not yield
      "require-yield": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",

      "import/first": "error",
      "import/newline-after-import": "error",
      "import/no-duplicates": "error",

      "sort-destructure-keys/sort-destructure-keys": "error",

      "@typescript-eslint/array-type": ["warn", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/no-wrapper-object-types": "off",
      "@typescript-eslint/consistent-type-imports": "warn",
      // `const { id, ...columns } = row` leaves out `id` on purpose
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        ignoreRestSiblings: true
      }],
      "@typescript-eslint/ban-ts-comment": "off",
      "@typescript-eslint/no-array-constructor": "off",
      "@typescript-eslint/no-use-before-define": "off",
      "@typescript-eslint/no-namespace": "off",

      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  {
    files: ["packages/*/src/**/*", "packages/*/test/**/*"],
    rules: { "no-console": "error" }
  },
  {
    // the test runners and the test SMTP server are optional peers (package.json's
    // peerDependenciesMeta): only the kits that need them import them, so that every other entry
    // point, `@sendline/core/testing` among them, loads without them installed
    files: ["packages/*/src/**/*"],
    ignores: ["packages/core/src/testing/suites/**", "packages/mailer-smtp/src/testing/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ["vitest", "vitest/*", "@effect/vitest", "@effect/vitest/*", "smtp-server"],
          message:
            "An optional peer: import it only in a test kit that needs it (@sendline/core/testing/suites, @sendline/mailer-smtp/testing)."
        }]
      }]
    }
  },
  {
    // core has no `any`, in its public types above all: keep it so
    files: ["packages/core/src/**/*"],
    rules: { "@typescript-eslint/no-explicit-any": "error" }
  },
  {
    // the few plain JavaScript files (this one, the test fixtures' module hooks) run on Node
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: globals.node }
  },
  {
    // dependency-cruiser's configuration is CommonJS
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: globals.node }
  }
)
