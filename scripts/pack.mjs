// The published manifest (SPEC §14). The checkout's package.json keeps `prepare` so that `npm ci` builds
// it, but npm 11 warns about a tarball whose manifest carries one ("install scripts not yet covered by
// allowScripts"), although npm never runs it for a tarball. So `npm pack` / `npm publish` swap in a
// manifest made for users — no scripts, no devDependencies — for the time of the pack, the way pinst
// and clean-publish do:
//
//   prepack:  node scripts/pack.mjs prepack    builds dist/ (skipped with GATECHAT_PACK_PREBUILT=1, as the
//                                              tests do: dist/ is built before them), then the swap
//   postpack: node scripts/pack.mjs postpack   puts the checkout's package.json back
//
// The checkout's own manifest waits in .package.json.packing; a pack that died half-way is undone by the
// next prepack. Both writes are renames: a gatechat started meanwhile reads one whole manifest or the other.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifestPath = join(root, 'package.json');
const savedPath = join(root, '.package.json.packing');

/** What an installed package says about itself, and nothing about how it is developed. */
const KEPT = ['name', 'version', 'description', 'keywords', 'homepage', 'bugs', 'license', 'author', 'repository', 'type', 'bin', 'files', 'engines'];

function replace(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

function restore() {
  if (!existsSync(savedPath)) return;
  replace(manifestPath, readFileSync(savedPath, 'utf8'));
  rmSync(savedPath);
}

switch (process.argv[2]) {
  case 'prepack': {
    restore();
    if (process.env.GATECHAT_PACK_PREBUILT !== '1') execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
    const text = readFileSync(manifestPath, 'utf8');
    const own = JSON.parse(text);
    const published = Object.fromEntries(KEPT.filter((key) => own[key] !== undefined).map((key) => [key, own[key]]));
    writeFileSync(savedPath, text);
    replace(manifestPath, `${JSON.stringify(published, null, 2)}\n`);
    break;
  }
  case 'postpack':
    restore();
    break;
  default:
    process.stderr.write('usage: node scripts/pack.mjs prepack|postpack (run by npm pack and npm publish)\n');
    process.exit(2);
}
