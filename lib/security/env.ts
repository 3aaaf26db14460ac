/** An environment to read settings from: process.env, or a plain object in tests. */
export type Env = Readonly<Record<string, string | undefined>>;
