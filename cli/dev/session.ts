// The deployment a command talks to, and its REST client, from the stored contexts.
import { DenApi } from './api.js';
import { chooseContext, readContexts, type Context, type ContextChoice } from './contexts.js';
import type { DevIo } from './io.js';

export interface Connected {
  name: string;
  context: Context;
  api: DenApi;
}

export async function connect(io: DevIo, choice: ContextChoice): Promise<Connected> {
  const { name, context } = chooseContext(await readContexts(io.env), choice, io.env);
  return { name, context, api: new DenApi(context.url, context.token) };
}
