declare const __GATECHAT_VERSION__: string;

/** Injected by the bundler; tests that import sources directly fall back to "dev". */
export const VERSION: string = typeof __GATECHAT_VERSION__ === 'string' ? __GATECHAT_VERSION__ : 'dev';
