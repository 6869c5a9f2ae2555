import { VERSION } from '../version.js';

// Placeholder entry until the CLI lands; keeps `npm ci` (prepare → build) working.
if (process.argv.includes('--version')) {
  process.stdout.write(`${VERSION}\n`);
}
