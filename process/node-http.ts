// node:http as CommonJS sees it. An ES module's `import http from 'node:http'` builds the
// module's namespace by reading every export, and three of them (WebSocket, CloseEvent,
// MessageEvent) are getters that load undici: 13 MiB of RSS in a process that never calls
// fetch (docs/manager.md, "At rest"). Types come from `import type … from 'node:http'` as usual.
import type * as NodeHttp from 'node:http';

export const http: typeof NodeHttp = process.getBuiltinModule('node:http');
