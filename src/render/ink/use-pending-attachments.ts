import { useCallback, useRef, useState } from 'react';
import type { Attachment } from '../../protocol/events.js';
import { checkAttachmentLimits, readAttachments } from '../../session/attachments.js';
import type { NoticeTone } from './chat-state.js';

export interface PendingAttachments {
  /** Shown above the input box until the next message takes them. */
  files: Attachment[];
  /** /attach PATH adds the files read from it (a refused file is a notice); null drops them all. */
  attach(path: string | null): void;
  /** The files for a message of `text`, now no longer pending; null (after a notice) when over the limits. */
  takeFor(text: string): Attachment[] | null;
}

/**
 * Files for the next message (/attach, or -a with chat). Kept in a ref as well as in state: a prompt
 * sent right after /attach must see the files even before React re-renders.
 */
export function usePendingAttachments(initial: Attachment[] | undefined, notice: (text: string, tone: NoticeTone) => void): PendingAttachments {
  const [files, setFiles] = useState<Attachment[]>(() => initial ?? []);
  const filesRef = useRef(files);
  const setPending = useCallback((next: Attachment[]) => {
    filesRef.current = next;
    setFiles(next);
  }, []);

  const attach = (path: string | null) => {
    if (path === null) {
      setPending([]);
      return notice('attachments cleared', 'dim');
    }
    readAttachments([path], { warn: (line) => notice(line, 'warn') }).then(
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
  };

  const takeFor = (text: string) => {
    const taken = filesRef.current;
    try {
      checkAttachmentLimits(taken, text);
    } catch (error) {
      notice((error as Error).message, 'error');
      return null;
    }
    setPending([]);
    return taken;
  };

  return { files, attach, takeFor };
}
