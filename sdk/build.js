// The SDK's build: tsc compiles src/ into dist/, then the generated `schema.d.ts` is copied
// beside the declarations that import it. tsc never emits a `.d.ts` source file, so without the
// copy an installed package would type every path as `never`.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = import.meta.dirname;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.build.json')],
  { stdio: 'inherit' });
copyFileSync(path.join(here, 'src/schema.d.ts'), path.join(here, 'dist/schema.d.ts'));
