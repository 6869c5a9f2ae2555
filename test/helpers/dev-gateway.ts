import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import type { GatewayOptions } from '../../src/gateway/types.js';
import { makeUserDirs } from './cli.js';

export interface GatewayAndUser {
  gateway: RunningGateway;
  /** `${gateway.url}/v1`, what users pass as --base-url */
  base: string;
  /** An isolated HOME, config dir and data dir. */
  user: ReturnType<typeof makeUserDirs>;
}

/**
 * One dev gateway for the test file (its request log emptied before each test) and an isolated
 * user: a fresh one per test (default), or one for the whole file. `log` receives the gateway's log
 * lines. Read the fields inside tests and hooks: the hooks set them.
 */
export function useGatewayAndUser(options: { userPer?: 'test' | 'file'; log?: GatewayOptions['log'] } = {}): GatewayAndUser {
  const context = {} as GatewayAndUser;
  const perFile = options.userPer === 'file';
  beforeAll(async () => {
    context.gateway = await startGateway({ port: 0, log: options.log });
    context.base = `${context.gateway.url}/v1`;
    if (perFile) context.user = makeUserDirs();
  });
  afterAll(async () => {
    await context.gateway.close();
    if (perFile) context.user.cleanup();
  });
  beforeEach(() => {
    if (!perFile) context.user = makeUserDirs();
    context.gateway.requests.length = 0;
  });
  afterEach(() => {
    if (!perFile) context.user.cleanup();
  });
  return context;
}
