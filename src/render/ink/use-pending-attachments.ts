import { useCallback, useRef, useState } from 'react';
import type { Attachment } from '../../protocol/events.js';
import { checkAttachmentLimits, readAttachments } from '../../session/attachments.js';
import { findReferences, readReferences } from './at-references.js';
import type { NoticeTone } from './chat-state.js';

export interface PendingAttachments {
  /** Shown above the input box until the next message takes them. */
  files: Attachment[];
  /** /attach PATH adds the files read from it (a refused file is a notice); null drops them all. */
  attach(path: string | null): void;
  /**
   * The files for a message of `text` (with `referenced`, its @paths), now no longer pending; null
   * (after a notice) when over the limits.
   */
  takeFor(text: string, referenced?: Attachment[]): Attachment[] | null;
  /**
   * A message with its files — the pending ones and those its @paths name — handed to `send` once
   * read. A path that names nothing sends nothing: a notice, and `giveBack` gets the draft.
   */
  forMessage(text: string, send: (message: string, files: Attachment[]) => void, giveBack: (draft: string) => void): void;
}

/**
 * Files for the next message (/attach, or -a with chat). Kept in a ref as well as in state: a prompt
 * sent right after /attach must see the files even before React re-renders.
 */
export function usePendingAttachments(
  initial: Attachment[] | undefined,
  notice: (text: string, tone: NoticeTone) => void,
  fetchUrl?: (url: string) => Promise<Attachment>,
): PendingAttachments {
  const [files, setFiles] = useState<Attachment[]>(() => initial ?? []);
  const filesRef = useRef(files);
  // /attach reads still under way (a slow page, a command): a message sent meanwhile waits for them,
  // or its files would go with the message after it.
  const readsRef = useRef(new Set<Promise<void>>());
  const setPending = useCallback((next: Attachment[]) => {
    filesRef.current = next;
    setFiles(next);
  }, []);

  const attach = (path: string | null) => {
    if (path === null) {
      setPending([]);
      return notice('attachments cleared', 'dim');
    }
    const reading = readAttachments([path], { warn: (line) => notice(line, 'warn'), commands: true, fetchUrl }).then(
      (read) => {
        const next = [...filesRef.current, ...read];
        try {
          checkAttachmentLimits(next, '');
        } catch (error) {
          return notice((error as Error).message, 'error');
        }
        setPending(next);
      },
      (error: unknown) => notice((error as Error).message, 'error'),
    );
    readsRef.current.add(reading);
    void reading.finally(() => readsRef.current.delete(reading));
  };

  const takeFor = (text: string, referenced: Attachment[] = []) => {
    const taken = [...filesRef.current, ...referenced];
    try {
      checkAttachmentLimits(taken, text);
    } catch (error) {
      notice((error as Error).message, 'error');
      return null;
    }
    setPending([]);
    return taken;
  };

  const forMessage: PendingAttachments['forMessage'] = (text, send, giveBack) => {
    if (readsRef.current.size > 0) {
      notice('waiting for /attach to finish reading…', 'dim');
      void Promise.all(readsRef.current).then(() => forMessage(text, send, giveBack));
      return;
    }
    const ready = (message: string, referenced: Attachment[]) => {
      const taken = takeFor(message, referenced);
      if (taken) send(message, taken);
    };
    const references = findReferences(text);
    if (references.paths.length === 0) return ready(references.text, []);
    readReferences(text, (line) => notice(line, 'warn')).then(
      (read) => ready(read.text, read.files),
      (error: unknown) => {
        notice((error as Error).message, 'error');
        giveBack(text);
      },
    );
  };

  return { files, attach, takeFor, forMessage };
}
