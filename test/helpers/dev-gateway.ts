import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { makeUserDirs } from './cli.js';

export interface GatewayAndUser {
  gateway: RunningGateway;
  /** `${gateway.url}/v1`, what users pass as --base-url */
  base: string;
  /** A fresh HOME, config dir and data dir for each test. */
  user: ReturnType<typeof makeUserDirs>;
}

/**
 * One dev gateway for the test file (its request log emptied before each test) and an isolated
 * user per test. Read the fields inside tests and hooks: they are set by the hooks.
 */
export function useGatewayAndUser(): GatewayAndUser {
  const context = {} as GatewayAndUser;
  beforeAll(async () => {
    context.gateway = await startGateway({ port: 0 });
    context.base = `${context.gateway.url}/v1`;
  });
  afterAll(() => context.gateway.close());
  beforeEach(() => {
    context.user = makeUserDirs();
    context.gateway.requests.length = 0;
  });
  afterEach(() => context.user.cleanup());
  return context;
}
