// The in-process fake kube-apiserver used by tests and benchmarks (see fake-apiserver/index.ts).
export { FakeApiServer, ApiError, type FakeApiServerOptions, type RequestRecord, type UpgradeHandler, type UserInfo } from './fake-apiserver/index.js';
