import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, readOwnBytes, writeFileAtomic } from '../storage/own-files.js';

// Binary attachments of saved conversations, stored once by content hash (SPEC §12): the same
// screenshot sent in ten turns or ten conversations is one file. Conversations hold only the hash.

const HASH = /^[0-9a-f]{64}$/;

export class BlobStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'blobs');
  }

  /** Stores base64 content (if not there yet) and returns its SHA-256 (of the bytes, hex). */
  put(base64: string): string {
    const bytes = Buffer.from(base64, 'base64');
    const hash = createHash('sha256').update(bytes).digest('hex');
    const path = join(this.root, hash);
    ensurePrivateDir(this.root);
    if (existsSync(path)) return hash;
    // Written beside and renamed, so a crash never leaves a half blob under the real name.
    writeFileAtomic(path, bytes);
    return hash;
  }

  /** The content as base64, or null when the blob is gone. */
  get(hash: string): string | null {
    if (!HASH.test(hash)) return null;
    try {
      // Never through a link planted in a blob's place: its target would be sent to the gateway.
      return readOwnBytes(join(this.root, hash)).toString('base64');
    } catch {
      return null;
    }
  }

  /** Removes every blob not in `keep`; returns how many went. (Temp files may be another process's write.) */
  collect(keep: ReadonlySet<string>): number {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!HASH.test(name) || keep.has(name)) continue;
      rmSync(join(this.root, name), { force: true });
      removed++;
    }
    return removed;
  }
}
